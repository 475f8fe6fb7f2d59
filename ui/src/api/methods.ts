/** Names of the TrueNAS middleware methods (and tengig's) the panel calls. */
export const API_METHODS = {
  ping: 'core.ping',
  loginEx: 'auth.login_ex',
  mechanismChoices: 'auth.mechanism_choices',
  subscribe: 'core.subscribe',
  getJobs: 'core.get_jobs',
  jobAbort: 'core.job_abort',
  getMethods: 'core.get_methods',
  benchRun: 'tengig.bench.run',
  benchSystems: 'tengig.bench.systems',
  benchKit: 'tengig.bench.kit',
  resultsQuery: 'tengig.results.query',
  resultsGet: 'tengig.results.get',
  resultsCompare: 'tengig.results.compare',
  resultsExport: 'tengig.results.export',
  targetsQuery: 'tengig.targets.query',
  targetsCreate: 'tengig.targets.create',
  targetsDelete: 'tengig.targets.delete',
  meshPlan: 'tengig.mesh.plan',
  meshRender: 'tengig.mesh.render',
  meshApply: 'tengig.mesh.apply',
  meshVerify: 'tengig.mesh.verify',
  meshCheckin: 'tengig.mesh.checkin',
  laggCheckin: 'tengig.lagg.checkin',
  nicQuery: 'tengig.nic.query',
  laggPlan: 'tengig.lagg.plan',
  laggValidate: 'tengig.lagg.validate',
  laggVerify: 'tengig.lagg.verify',
  laggApply: 'tengig.lagg.apply',
  fixPlan: 'tengig.fix.plan',
  fixApply: 'tengig.fix.apply',
  fixQuery: 'tengig.fix.query',
  fixUndo: 'tengig.fix.undo',
} as const

export type ApiMethod = (typeof API_METHODS)[keyof typeof API_METHODS]

/** The event a job's every state and progress change is published on. */
export const JOBS_EVENT = 'core.get_jobs'
