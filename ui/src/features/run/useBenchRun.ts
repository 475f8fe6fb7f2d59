/**
 * One benchmark run from the panel: tengig.bench.run as a job of useJob (composables/useJob.ts), which
 * starts it, follows its job events (progress, live samples), stops it with core.job_abort and knows
 * how it ended: 'done', 'failed', or 'aborted' (stopped on request). A run that failed or was aborted
 * keeps its error and shows no numbers.
 *
 * What a run adds to any job: the request it was started with (its steps are named after it), and the
 * join session. A run that desktops join (system local, join > 0) first waits for them: its
 * progress.extra carries the session (joinSession.ts). The last session seen is kept, so who joined
 * stays shown while the run measures them, and the steps are named after them.
 */
import { computed, ref } from 'vue'
import type { BenchOutcome, BenchRunRequest } from '../../api/types'
import { clearErrors } from '../../composables/useErrors'
import { useJob, type JobApi } from '../../composables/useJob'
import { currentApi } from '../../composables/useSession'
import { benchSteps, liveChartData, stepProgress } from './benchProgress'
import { joinSessionOf, type JoinSession } from './joinSession'

/** What a run takes from the API: start tengig.bench.run, then follow and stop it as any job. */
export interface BenchApi extends JobApi {
  startBench(request: BenchRunRequest): Promise<number>
}

export interface UseBenchRunOptions {
  /** Default: the session's API (tests pass a fake). */
  api?: () => BenchApi
  /** Milliseconds clock for the live samples' times. */
  now?: () => number
}

export function useBenchRun(onFinished: (outcome: BenchOutcome) => void, options: UseBenchRunOptions = {}) {
  const api = options.api ?? currentApi
  const request = ref<BenchRunRequest | null>(null)
  const session = ref<JoinSession | null>(null)
  const job = useJob<BenchOutcome>({
    context: 'run',
    api,
    now: options.now,
    onUpdate: (snapshot) => {
      session.value = joinSessionOf(snapshot.progress.extra) ?? session.value
    },
  })
  const { state, running } = job

  /** The run waits for desktops: its session is announced and not everyone is in yet. */
  const waitingForClients = computed(() =>
    running.value && session.value !== null && joinSessionOf(state.job?.progress.extra) !== null
    && session.value.joined.length < session.value.expected)
  const steps = computed(() => {
    const started = request.value
    if (!started) return []
    const join = started.join ?? 0
    if (join === 0) return stepProgress(benchSteps(started.kind ?? 'all', started.clients ?? []), state.job)
    // Desktops are named once they join; until then nothing runs (the job's 0% is the wait, not a step).
    const names = session.value?.joined.length ? session.value.joined.map((c) => c.name)
      : Array.from({ length: join }, (_, i) => `desktop ${i + 1}`)
    const steps = benchSteps(started.kind ?? 'all', names, { concurrent: false, small: started.preset === 'full' })
    return stepProgress(steps, waitingForClients.value ? null : state.job)
  })
  const chartData = computed(() => liveChartData(state.samples))

  /** Starts the run and follows it to its end; `onFinished` gets the outcome of a run that succeeded.
   * Does nothing while one runs. */
  async function start(next: BenchRunRequest) {
    if (running.value) return
    clearErrors('run')
    request.value = next
    session.value = null
    const outcome = await job.run(() => api().startBench(next))
    if (state.phase === 'done' && outcome !== null) onFinished(outcome)
  }

  return { state, request, session, steps, chartData, running, waitingForClients, start, cancel: job.cancel }
}
