import { beforeEach, describe, expect, it } from 'vitest'
import { ref } from 'vue'
import { ApiError, JobFailedError, describeError } from '../api/errors'
import type { Job } from '../api/types'
import { clearErrors, useErrors } from './useErrors'
import { fieldErrorsInto, fieldErrorsOf, useJob, type JobApi } from './useJob'

/** A server whose job the test drives: snapshots pushed by hand, then the end. */
class FakeJobs implements JobApi {
  onUpdate: ((job: Job) => void) | null = null
  private settle: { resolve: (v: unknown) => void; reject: (e: unknown) => void } | null = null
  aborted: number[] = []

  followJob<T>(_id: number, onUpdate: (job: Job) => void): Promise<T> {
    this.onUpdate = onUpdate
    return new Promise<T>((resolve, reject) => (this.settle = { resolve: resolve as (v: unknown) => void, reject }))
  }

  async abortJob(id: number): Promise<null> {
    this.aborted.push(id)
    return null
  }

  push(percent: number, description: string, extra: unknown = null) {
    this.onUpdate?.({ id: 7, method: 'tengig.lagg.verify', state: 'RUNNING', result: null, error: null,
      progress: { percent, description, extra } })
  }

  finish(result: unknown) {
    this.settle?.resolve(result)
  }

  fail(err: unknown) {
    this.settle?.reject(err)
  }
}

const tick = () => new Promise((r) => setTimeout(r, 0))

describe('useJob', () => {
  beforeEach(() => clearErrors())

  it('follows the job: percent, description, one live sample per new extra, then the result', async () => {
    const server = new FakeJobs()
    let clock = 1000
    const job = useJob<{ ok: boolean }>({ context: 'lagg', api: () => server, now: () => clock })
    const done = job.run(async () => 7)
    await tick()
    expect([job.state.phase, job.state.jobId, job.running.value]).toEqual(['running', 7, true])
    expect(job.description.value).toBe('starting')
    clock = 3000
    server.push(0, 'bond1: iperf3 read, 1 flow(s)', { phase: 'lagg read 1 flow(s)', bytes_per_s: 117e6 })
    server.push(25, 'bond1: iperf3 write, 1 flow(s)', { phase: 'lagg read 1 flow(s)', bytes_per_s: 117e6 })
    expect([job.percent.value, job.description.value]).toEqual([25, 'bond1: iperf3 write, 1 flow(s)'])
    expect(job.state.samples).toEqual([{ t: 2, phase: 'lagg read 1 flow(s)', bytesPerS: 117e6 }])
    server.finish({ ok: true })
    await expect(done).resolves.toEqual({ ok: true })
    expect([job.state.phase, job.running.value, job.state.result]).toEqual(['done', false, { ok: true }])
    expect(useErrors().errors).toHaveLength(0)
  })

  it('shows a failed job once, in words, with no result', async () => {
    const server = new FakeJobs()
    const job = useJob({ context: 'lagg', api: () => server })
    const done = job.run(async () => 7)
    await tick()
    server.fail(new JobFailedError('tengig.lagg.verify', 'FAILED', "options.client: 'printer' is not a client of the lab", null,
      [['options.client', "'printer' is not a client of the lab (desk, lab)"]]))
    await expect(done).resolves.toBeNull()
    expect([job.state.phase, job.state.result]).toEqual(['failed', null])
    expect(job.state.failure).toMatch(/^tengig\.lagg\.verify failed: options\.client/)
    expect(useErrors().errors.map((e) => [e.context, e.text])).toEqual([['lagg', job.state.failure]])
  })

  it('hands the error to onError instead when given, and refuses a second job while one runs', async () => {
    const server = new FakeJobs()
    const seen: unknown[] = []
    const job = useJob({ context: 'lagg', api: () => server, onError: (e) => seen.push(e) })
    const refused = new ApiError('tengig.lagg.verify', -32602, 'Invalid params', { extra: [['options.seconds', 'too short']] })
    await job.run(async () => { throw refused })
    expect([job.state.phase, seen]).toEqual(['failed', [refused]])
    expect(useErrors().errors).toHaveLength(0)
    const first = job.run(async () => 8)
    await tick()
    let started = false
    await expect(job.run(async () => { started = true; return 9 })).resolves.toBeNull()
    expect([started, job.state.jobId]).toEqual([false, 8])
    server.finish(1)
    await first
  })

  it('stops the running job through core.job_abort and ends as aborted', async () => {
    const server = new FakeJobs()
    const job = useJob({ context: 'lagg', api: () => server, onError: () => {} })
    const done = job.run(async () => 7)
    await tick()
    await job.cancel()
    expect([server.aborted, job.state.phase]).toEqual([[7], 'aborting'])
    server.fail(new JobFailedError('tengig.lagg.verify', 'ABORTED', 'stopped on request'))
    await done
    expect(job.state.phase).toBe('aborted')
    job.reset()
    expect([job.state.phase, job.state.jobId, job.state.samples]).toEqual(['idle', null, []])
  })
})

describe('fieldErrorsOf', () => {
  it('takes the field paths of a refused call or a job failed on validation, nothing else', () => {
    expect(fieldErrorsOf(new ApiError('m', -32602, 'x', { extra: [['options.seconds', 'too short', 22]] }))).toEqual([['options.seconds', 'too short']])
    expect(fieldErrorsOf(new ApiError('m', -32001, 'x', { extra: [['a', 'b']] }))).toEqual([])
    expect(fieldErrorsOf(new JobFailedError('m', 'FAILED', 'x', null, [['options.client', 'no']]))).toEqual([['options.client', 'no']])
    expect(fieldErrorsOf(new Error('x'))).toEqual([])
  })
})

describe('fieldErrorsInto', () => {
  beforeEach(() => clearErrors())

  it('lists an error that names fields beside the form, any other in the view\'s error list', () => {
    const list = ref<[string, string][]>([])
    const onError = fieldErrorsInto(list, 'lagg')
    onError(new JobFailedError('m', 'FAILED', 'x', null, [['options.client', 'no']]))
    expect(list.value).toEqual([['options.client', 'no']])
    expect(useErrors().errors).toHaveLength(0)
    const down = new ApiError('m', -32001, 'the lab is down', { extra: [['options.client', 'no']] })
    onError(down)
    expect(list.value).toEqual([['options.client', 'no']])
    expect(useErrors().errors.map((e) => [e.context, e.text])).toEqual([['lagg', describeError(down)]])
  })
})
