/**
 * For specs: one server-side job the test drives by hand. followJob settles on a final snapshot as the
 * panel's JobWatcher does (jobOutcome: FAILED and ABORTED both reject, told apart); abortJob is recorded.
 */
import { isFinal, jobOutcome } from '../api/jobs'
import type { Job, JobState } from '../api/types'

export class FakeJob {
  aborted: number[] = []
  private listener: ((job: Job) => void) | null = null

  constructor(readonly id = 41, readonly method = 'tengig.bench.run') {}

  followJob<T>(_id: number, onUpdate: (job: Job) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.listener = (job) => {
        onUpdate(job)
        if (!isFinal(job)) return
        const outcome = jobOutcome<T>(job)
        if (outcome.ok) resolve(outcome.result)
        else reject(outcome.error)
      }
    })
  }

  async abortJob(id: number): Promise<null> {
    this.aborted.push(id)
    return null
  }

  /** The job's next snapshot, as the server would send it. */
  push(state: JobState, progress: Job['progress'], more: Partial<Job> = {}): void {
    this.listener?.({ id: this.id, method: this.method, state, result: null, error: null, progress, ...more })
  }
}
