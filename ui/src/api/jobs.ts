/**
 * Jobs as the panel follows them: every state or progress change arrives as a core.get_jobs
 * collection_update (docs/truenas-api.md §2). `mergeJobUpdate` and `jobOutcome` are pure; JobWatcher keeps
 * the latest snapshot of every job it has heard of, so events that arrive before the job id is
 * known (the start call's answer) are not lost.
 */
import { JobFailedError } from './errors'
import { JOBS_EVENT } from './methods'
import type { CollectionUpdate, RpcClient } from './rpc'
import type { Job } from './types'

export const FINAL_STATES = ['SUCCESS', 'FAILED', 'ABORTED'] as const

export function isFinal(job: Job): boolean {
  return (FINAL_STATES as readonly string[]).includes(job.state)
}

export function mergeJobUpdate(previous: Job | undefined, update: CollectionUpdate): Job | undefined {
  if (update.msg === 'removed') return undefined
  const fields = (update.fields ?? {}) as Partial<Job>
  const merged = { ...(previous ?? {}), ...fields, id: Number(update.id ?? fields.id) } as Job
  return merged
}

/** A finished job's result, or the error it ended with (never a result for a failed job). */
export function jobOutcome<T>(job: Job): { ok: true; result: T } | { ok: false; error: JobFailedError } {
  if (job.state === 'SUCCESS') return { ok: true, result: job.result as T }
  const state = job.state === 'ABORTED' ? 'ABORTED' : 'FAILED'
  const extra = job.exc_info?.type === 'VALIDATION' && Array.isArray(job.exc_info.extra) ? job.exc_info.extra : []
  const fields = (extra as unknown[][]).map((e) => [String(e[0]), String(e[1])] as [string, string])
  const message = job.error || (state === 'ABORTED' ? 'stopped on request' : 'the job failed without saying why')
  return { ok: false, error: new JobFailedError(job.method, state, message, null, fields) }
}

export class JobWatcher {
  private jobs = new Map<number, Job>()
  private watchers = new Map<number, Set<(job: Job) => void>>()
  private started: Promise<unknown> | null = null

  constructor(private readonly rpc: RpcClient) {}

  /** Subscribe once; call before starting a job so none of its events are missed. */
  start(): Promise<unknown> {
    this.started ??= this.rpc.subscribe(JOBS_EVENT, (update) => this.apply(update))
    return this.started
  }

  get(id: number): Job | undefined {
    return this.jobs.get(id)
  }

  /** Calls `onUpdate` with every snapshot of job `id` (the latest known one at once); resolves with
   * its result, rejects with a JobFailedError. */
  follow<T>(id: number, onUpdate: (job: Job) => void = () => {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const listener = (job: Job) => {
        onUpdate(job)
        if (!isFinal(job)) return
        this.watchers.get(id)?.delete(listener)
        const outcome = jobOutcome<T>(job)
        if (outcome.ok) resolve(outcome.result)
        else reject(outcome.error)
      }
      let set = this.watchers.get(id)
      if (!set) this.watchers.set(id, (set = new Set()))
      set.add(listener)
      const known = this.jobs.get(id)
      if (known) listener(known)
      this.rpc.onClose((err) => {
        if (this.watchers.get(id)?.delete(listener)) reject(err)
      })
    })
  }

  private apply(update: CollectionUpdate): void {
    const id = Number(update.id)
    const job = mergeJobUpdate(this.jobs.get(id), update)
    if (!job) {
      this.jobs.delete(id)
      return
    }
    this.jobs.set(id, job)
    this.watchers.get(id)?.forEach((listener) => listener(job))
  }
}
