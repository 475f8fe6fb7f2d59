/**
 * One job from a view: start it, follow its core.get_jobs events (percent, description and the live
 * samples tengig puts in progress.extra as {phase, bytes_per_s}), stop it with core.job_abort, keep
 * its result or its error. One job at a time per use; every job of the panel goes through it (the
 * mesh and LAGG views', and the benchmark run's through features/run/useBenchRun).
 *
 * Its end is one of three phases: 'done' (a result), 'failed' (an error) or 'aborted' (stopped on
 * request: core.job_abort, the job ended ABORTED). An error or an abort goes to `onError` once (default:
 * the view's error list, in words); `state.failure` keeps the same words for a caller that shows them
 * elsewhere instead. A job that failed or was aborted never has a result.
 */
import { computed, reactive, type Ref } from 'vue'
import { ApiError, JobFailedError, RPC_CODES, describeError } from '../api/errors'
import type { Job } from '../api/types'
import { addSample, type LiveSample } from '../lib/liveSamples'
import { reportError } from './useErrors'
import { currentApi } from './useSession'

/** What following and stopping a job takes from the API (TengigApi has it; tests pass a fake). */
export interface JobApi {
  followJob<T>(id: number, onUpdate: (job: Job) => void): Promise<T>
  abortJob(id: number): Promise<null>
}

export type JobPhase = 'idle' | 'starting' | 'running' | 'aborting' | 'done' | 'failed' | 'aborted'

export interface UseJobOptions {
  /** The view the errors belong to (useErrors context). */
  context: string
  /** Where an error goes; default: reportError(err, context). */
  onError?: (err: unknown) => void
  api?: () => JobApi
  /** Milliseconds clock for the samples' times. */
  now?: () => number
  /** Called with every snapshot of the job after useJob took it in (a caller's own reading of progress.extra). */
  onUpdate?: (job: Job) => void
}

/** [field path, message] of an error that names fields: a -32602 answer or a job failed on validation. */
export function fieldErrorsOf(err: unknown): [string, string][] {
  if (err instanceof ApiError) return err.code === RPC_CODES.invalidParams ? err.fieldErrors : []
  if (err instanceof JobFailedError) return err.fieldErrors
  return []
}

/**
 * onError for a job whose form lists the errors that name its fields: those go to `list`, next to the
 * form; any other error to the view's error list (`context`).
 */
export function fieldErrorsInto(list: Ref<[string, string][]>, context: string): (err: unknown) => void {
  return (err) => {
    const fields = fieldErrorsOf(err)
    if (fields.length) list.value = fields
    else reportError(err, context)
  }
}

export function useJob<T>(options: UseJobOptions) {
  const api = options.api ?? currentApi
  const onError = options.onError ?? ((err: unknown) => reportError(err, options.context))
  const now = options.now ?? Date.now
  const state = reactive({
    phase: 'idle' as JobPhase,
    jobId: null as number | null,
    job: null as Job | null,
    result: null as T | null,
    failure: null as string | null,
    samples: [] as LiveSample[],
    lastExtra: null as string | null,
    startedAt: 0,
  })
  const running = computed(() => ['starting', 'running', 'aborting'].includes(state.phase))
  const percent = computed(() => state.job?.progress.percent ?? 0)
  const description = computed(() => state.job?.progress.description || (running.value ? 'starting' : ''))

  function onUpdate(job: Job) {
    state.job = job
    const next = addSample(state.samples, state.lastExtra, job.progress.extra, (now() - state.startedAt) / 1000)
    state.samples = next.samples
    state.lastExtra = next.lastExtra
    options.onUpdate?.(job)
  }

  /** Starts the job with `start` (it answers the job id) and follows it to its end; resolves with the
   * result, or null when it failed (the error went to onError). Refused while one is running. */
  async function run(start: () => Promise<number>): Promise<T | null> {
    if (running.value) return null
    Object.assign(state, { phase: 'starting', jobId: null, job: null, result: null, failure: null, samples: [],
      lastExtra: null, startedAt: now() })
    try {
      state.jobId = await start()
      state.phase = 'running'
      const result = await api().followJob<T>(state.jobId, onUpdate)
      state.result = result as never
      state.phase = 'done'
      return result
    } catch (err) {
      state.phase = err instanceof JobFailedError && err.state === 'ABORTED' ? 'aborted' : 'failed'
      state.failure = describeError(err)
      onError(err)
      return null
    }
  }

  /** Asks the server to stop the running job (core.job_abort); its end arrives as a job event. */
  async function cancel() {
    if (state.jobId === null || !['running', 'starting'].includes(state.phase)) return
    state.phase = 'aborting'
    try {
      await api().abortJob(state.jobId)
    } catch (err) {
      onError(err)
    }
  }

  /** Forgets the last job (a new plan makes its result stale). Does nothing while one runs. */
  function reset() {
    if (running.value) return
    Object.assign(state, { phase: 'idle', jobId: null, job: null, result: null, failure: null, samples: [], lastExtra: null })
  }

  return { state, running, percent, description, run, cancel, reset }
}
