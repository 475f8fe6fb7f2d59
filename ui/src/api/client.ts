/** The typed face of the API: one method per server method the panel uses. */
import { ApiError } from './errors'
import { JobWatcher } from './jobs'
import { API_METHODS as M } from './methods'
import { RpcClient } from './rpc'
import type {
  AuthLoginData, AuthLoginExResponse, BenchKit, BenchKitRequest, BenchRunRequest, BenchSystemState, Comparison, FixApplyRequest, FixPlan, FixRecord, Job, LaggApplyOptions, LaggPlan, LaggRequest, LaggValidation, LaggVerifyOptions, Nic, NicQueryOptions, MeshApplyOptions, MeshPlan, MeshRequest,
  MeshVerifyOptions, NewTarget, RenderedConfig,
  ResultsQueryOptions, RunEntry, Target,
} from './types'

export class TengigApi {
  readonly jobs: JobWatcher

  constructor(readonly rpc: RpcClient) {
    this.jobs = new JobWatcher(rpc)
  }

  /** auth.login_ex (PASSWORD_PLAIN or API_KEY_PLAIN): the server's answer; only SUCCESS is logged in, and
   * then the job events are subscribed to. */
  async login(data: AuthLoginData): Promise<AuthLoginExResponse> {
    const answer = await this.rpc.call<AuthLoginExResponse>(M.loginEx, [data])
    if (answer?.response_type === 'SUCCESS') await this.jobs.start()
    return answer
  }

  /** The mechanisms auth.login_ex takes on this server (asked without logging in). */
  mechanismChoices(): Promise<string[]> {
    return this.rpc.call(M.mechanismChoices, [])
  }

  /** Names of every method the server offers (to show what this server can do). */
  async methodNames(): Promise<Set<string>> {
    return new Set(Object.keys(await this.rpc.call<Record<string, unknown>>(M.getMethods, [])))
  }

  targets(): Promise<Target[]> {
    return this.rpc.call(M.targetsQuery, [])
  }

  createTarget(target: NewTarget): Promise<Target> {
    return this.rpc.call(M.targetsCreate, [target])
  }

  deleteTarget(name: string): Promise<true> {
    return this.rpc.call(M.targetsDelete, [name])
  }

  results(options: ResultsQueryOptions = {}): Promise<RunEntry[]> {
    return this.rpc.call(M.resultsQuery, [options])
  }

  result(id: number): Promise<RunEntry> {
    return this.rpc.call(M.resultsGet, [id])
  }

  compare(a: number, b: number): Promise<Comparison> {
    return this.rpc.call(M.resultsCompare, [a, b])
  }

  /** One run as a document (tengig.results.export): 'md' is the report to paste into a forum post. */
  exportRun(id: number, format: 'md' | 'json' | 'csv'): Promise<string> {
    return this.rpc.call(M.resultsExport, [format, [id]])
  }

  /** Where a benchmark can run now, each system with the reason. */
  benchSystems(): Promise<BenchSystemState[]> {
    return this.rpc.call(M.benchSystems, [])
  }

  /** The join script for a Windows desktop, rendered by the NAS for this run (tengig.bench.kit). */
  benchKit(request: BenchKitRequest): Promise<BenchKit> {
    return this.rpc.call(M.benchKit, [request])
  }

  /** Starts tengig.bench.run; the answer is the job id (legacy_jobs, the protocol's default). */
  startBench(request: BenchRunRequest): Promise<number> {
    return this.startJob(M.benchRun, [request])
  }

  /** Starts a job method; the answer is the job id (legacy_jobs, the protocol's default). */
  private async startJob(method: string, params: unknown[]): Promise<number> {
    const id = await this.rpc.call<unknown>(method, params)
    if (typeof id !== 'number') {
      throw new ApiError(method, -32603, `expected a job id, got ${JSON.stringify(id)}`)
    }
    return id
  }

  /** Follows any job started here: every snapshot to `onUpdate`, then its result or its error. */
  followJob<T>(id: number, onUpdate: (job: Job) => void): Promise<T> {
    return this.jobs.follow<T>(id, onUpdate)
  }

  abortJob(id: number): Promise<null> {
    return this.rpc.call(M.jobAbort, [id])
  }

  meshPlan(request: MeshRequest): Promise<MeshPlan> {
    return this.rpc.call(M.meshPlan, [request])
  }

  meshRender(request: MeshRequest, host: string): Promise<RenderedConfig> {
    return this.rpc.call(M.meshRender, [request, host])
  }

  startMeshApply(request: MeshRequest, options: MeshApplyOptions): Promise<number> {
    return this.startJob(M.meshApply, [request, options])
  }

  startMeshVerify(request: MeshRequest, options: MeshVerifyOptions): Promise<number> {
    return this.startJob(M.meshVerify, [request, options])
  }

  /** Confirm the apply that waits for it (tengig.mesh.checkin / tengig.lagg.checkin): the change stays. */
  checkin(method: typeof M.meshCheckin | typeof M.laggCheckin): Promise<boolean> {
    return this.rpc.call(method, [])
  }

  /** The ports of this machine ('local') or of a lab host. */
  nics(options: NicQueryOptions): Promise<Nic[]> {
    return this.rpc.call(M.nicQuery, [options])
  }

  laggPlan(request: LaggRequest): Promise<LaggPlan> {
    return this.rpc.call(M.laggPlan, [request])
  }

  /** The plan and what applying it would run; an invalid request fails with field paths. */
  laggValidate(request: LaggRequest): Promise<LaggValidation> {
    return this.rpc.call(M.laggValidate, [request])
  }

  /** Starts tengig.lagg.apply (a job): the LAGG the request plans, on this Linux machine or the configured
   * TrueNAS (commit, probe, then checkin, or a person's confirmation with wait_for_checkin). */
  startLaggApply(request: LaggRequest, options: LaggApplyOptions): Promise<number> {
    return this.startJob(M.laggApply, [request, options])
  }

  /** Starts tengig.lagg.verify (a job, abortable): iperf3 1/N flows both ways with member counters,
   * against the plan the request gives. The answer is the job id; the result a LaggVerification (the lab),
   * or a JoinedLaggVerification (join: desktops that join the NAS tengig runs on). */
  startLaggVerify(request: LaggRequest, options: LaggVerifyOptions): Promise<number> {
    return this.startJob(M.laggVerify, [request, options])
  }

  /** The run's advice answered by changes of the NAS, each with its value now and its prediction (read-only). */
  fixPlan(runId: number): Promise<FixPlan> {
    return this.rpc.call(M.fixPlan, [runId])
  }

  /** Starts tengig.fix.apply (a job; nothing changes without request.confirm): the change, SMB measured again
   * with the same desktops (they join with the token in progress.extra.session), kept or put back. */
  startFixApply(request: FixApplyRequest): Promise<number> {
    return this.startJob(M.fixApply, [request])
  }

  /** The fixes made from a run or measured by it (null: all), newest first. */
  fixes(runId: number | null = null): Promise<FixRecord[]> {
    return this.rpc.call(M.fixQuery, [runId])
  }

  /** Puts back the value before every fix the run kept; what was put back, one line each. */
  fixUndo(runId: number): Promise<string[]> {
    return this.rpc.call(M.fixUndo, [runId])
  }
}
