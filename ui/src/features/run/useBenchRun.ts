/**
 * One benchmark run from the panel: start tengig.bench.run, follow its job events (progress, live
 * samples), cancel with core.job_abort. A failed run keeps its error and shows no numbers.
 *
 * A run that desktops join (system local, join > 0) first waits for them: its progress.extra carries
 * the session (joinSession.ts). The last session seen is kept, so who joined stays shown while the run
 * measures them, and the steps are named after them.
 */
import { computed, reactive } from 'vue'
import { describeError } from '../../api/errors'
import type { BenchOutcome, BenchRunRequest, Job } from '../../api/types'
import { clearErrors, reportError } from '../../composables/useErrors'
import { currentApi } from '../../composables/useSession'
import { addSample, benchSteps, liveChartData, stepProgress, type LiveSample } from './benchProgress'
import { joinSessionOf, type JoinSession } from './joinSession'

export function useBenchRun(onFinished: (outcome: BenchOutcome) => void) {
  const state = reactive({
    request: null as BenchRunRequest | null,
    jobId: null as number | null,
    job: null as Job | null,
    samples: [] as LiveSample[],
    lastExtra: null as string | null,
    startedAt: 0,
    phase: 'idle' as 'idle' | 'starting' | 'running' | 'aborting' | 'done' | 'failed',
    failure: null as string | null,
    session: null as JoinSession | null,
  })

  const running = computed(() => ['starting', 'running', 'aborting'].includes(state.phase))
  /** The run waits for desktops: its session is announced and not everyone is in yet. */
  const waitingForClients = computed(() =>
    running.value && state.session !== null && joinSessionOf(state.job?.progress.extra) !== null
    && state.session.joined.length < state.session.expected)
  const steps = computed(() => {
    const request = state.request
    if (!request) return []
    const join = request.join ?? 0
    if (join === 0) return stepProgress(benchSteps(request.kind ?? 'all', request.clients ?? []), state.job)
    // Desktops are named once they join; until then nothing runs (the job's 0% is the wait, not a step).
    const names = state.session?.joined.length ? state.session.joined.map((c) => c.name)
      : Array.from({ length: join }, (_, i) => `desktop ${i + 1}`)
    const steps = benchSteps(request.kind ?? 'all', names, { concurrent: false })
    return stepProgress(steps, waitingForClients.value ? null : state.job)
  })
  const chartData = computed(() => liveChartData(state.samples))

  function onUpdate(job: Job) {
    state.job = job
    state.session = joinSessionOf(job.progress.extra) ?? state.session
    const next = addSample(state.samples, state.lastExtra, job.progress.extra, (Date.now() - state.startedAt) / 1000)
    state.samples = next.samples
    state.lastExtra = next.lastExtra
  }

  async function start(request: BenchRunRequest) {
    clearErrors('run')
    Object.assign(state, { request, jobId: null, job: null, samples: [], lastExtra: null, failure: null, session: null,
      startedAt: Date.now(), phase: 'starting' })
    try {
      const api = currentApi()
      state.jobId = await api.startBench(request)
      state.phase = 'running'
      const outcome = await api.followBench(state.jobId, onUpdate)
      state.phase = 'done'
      onFinished(outcome)
    } catch (err) {
      state.phase = 'failed'
      state.failure = describeError(err)
      reportError(err, 'run')
    }
  }

  async function cancel() {
    if (state.jobId === null) return
    state.phase = 'aborting'
    try {
      await currentApi().abortJob(state.jobId)
    } catch (err) {
      reportError(err, 'run')
    }
  }

  return { state, steps, chartData, running, waitingForClients, start, cancel }
}
