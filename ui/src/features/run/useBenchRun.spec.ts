import { beforeEach, describe, expect, it } from 'vitest'
import type { BenchOutcome, BenchRunRequest, Job, JobState } from '../../api/types'
import { clearErrors, useErrors } from '../../composables/useErrors'
import { FakeJob } from '../../testing/fakeJob'
import { useBenchRun, type BenchApi } from './useBenchRun'

/** A server whose benchmark job the test drives (testing/fakeJob.ts), and the runs started on it. */
class FakeBench extends FakeJob implements BenchApi {
  started: BenchRunRequest[] = []

  async startBench(request: BenchRunRequest): Promise<number> {
    this.started.push(request)
    return 41
  }

  pushStep(state: JobState, percent: number, description: string, extra: unknown = null, more: Partial<Job> = {}) {
    this.push(state, { percent, description, extra }, more)
  }
}

const tick = () => new Promise((r) => setTimeout(r, 0))
const REQUEST: BenchRunRequest = { system: 'lab', target: 'hdd-15k', preset: 'quick', kind: 'all', clients: ['desk'] }
const OUTCOME: BenchOutcome = { run_id: 3, summary: 'SMB loses to the disk', verdict: null, report: {} }

function setUp() {
  const server = new FakeBench()
  const finished: BenchOutcome[] = []
  let clock = 1000
  const run = useBenchRun((outcome) => finished.push(outcome), { api: () => server, now: () => clock })
  return { server, finished, run, advance: (ms: number) => (clock += ms) }
}

describe('useBenchRun', () => {
  beforeEach(() => clearErrors())

  it('starts tengig.bench.run, follows its steps and live samples, and hands the outcome on', async () => {
    const { server, finished, run, advance } = setUp()
    const done = run.start(REQUEST)
    await tick()
    expect([server.started, run.state.phase, run.state.jobId, run.running.value]).toEqual([[REQUEST], 'running', 41, true])
    advance(2500)
    server.pushStep('RUNNING', 40, 'iperf3 desk', { phase: 'network desk-nas read 1 stream(s)', bytes_per_s: 116e6 })
    expect(run.steps.value.map((s) => [s.key, s.state])).toEqual([['pool', 'done'], ['net:desk', 'running'], ['smb:desk', 'pending']])
    expect(run.state.samples).toEqual([{ t: 2.5, phase: 'network desk-nas read 1 stream(s)', bytesPerS: 116e6 }])
    expect(run.chartData.value).toEqual([[2.5], [null], [116], [null]])
    server.pushStep('SUCCESS', 100, 'verdict', null, { result: OUTCOME })
    await done
    expect([run.state.phase, run.running.value, finished]).toEqual(['done', false, [OUTCOME]])
    expect(useErrors().errors).toHaveLength(0)
  })

  it('ends a run stopped with core.job_abort as aborted, not failed, with no outcome', async () => {
    const { server, finished, run } = setUp()
    const done = run.start(REQUEST)
    await tick()
    server.pushStep('RUNNING', 40, 'iperf3 desk')
    await run.cancel()
    expect([server.aborted, run.state.phase]).toEqual([[41], 'aborting'])
    server.pushStep('ABORTED', 40, 'iperf3 desk')
    await done
    expect(run.state.phase).toBe('aborted')
    expect(run.running.value).toBe(false)
    expect(run.state.failure).toBe('tengig.bench.run was aborted: stopped on request')
    expect(run.steps.value.map((s) => s.state)).toEqual(['done', 'aborted', 'pending'])
    expect(finished).toEqual([])
    expect(useErrors().errors.map((e) => [e.context, e.text])).toEqual([['run', run.state.failure]])
  })

  it('ends a run the server failed as failed, with its error once', async () => {
    const { server, finished, run } = setUp()
    const done = run.start(REQUEST)
    await tick()
    server.pushStep('FAILED', 70, 'smbclient desk', null, { error: 'NT_STATUS_CONNECTION_REFUSED' })
    await done
    expect([run.state.phase, finished]).toEqual(['failed', []])
    expect(run.state.failure).toBe('tengig.bench.run failed: NT_STATUS_CONNECTION_REFUSED')
    expect(run.steps.value.map((s) => s.state)).toEqual(['done', 'done', 'failed'])
    expect(useErrors().errors.map((e) => e.text)).toEqual([run.state.failure])
  })

  it('keeps the join session while the desktops are measured, and names the steps after them', async () => {
    const { server, run } = setUp()
    const done = run.start({ system: 'local', target: 'hdd-15k', kind: 'net', join: 1, clients: [] })
    await tick()
    const session = (joined: unknown[]) => ({ phase: 'waiting for clients', session: { id: 1, token: 'tgb-feed', expected: 1, joined } })
    server.pushStep('RUNNING', 0, 'waiting for 1 desktop(s)', session([]))
    expect([run.waitingForClients.value, run.session.value?.token]).toEqual([true, 'tgb-feed'])
    expect(run.steps.value.map((s) => [s.key, s.state])).toEqual([['net:desktop 1', 'pending']])
    server.pushStep('RUNNING', 0, 'desk joined', session([{ name: 'desk', os: 'linux', address: '10.99.1.2' }]))
    server.pushStep('RUNNING', 50, 'iperf3 desk', { phase: 'network desk read 1 stream(s)', bytes_per_s: 110e6 })
    expect(run.waitingForClients.value).toBe(false)
    expect(run.session.value?.joined.map((c) => c.name)).toEqual(['desk'])
    expect(run.steps.value.map((s) => [s.key, s.state])).toEqual([['net:desk', 'running']])
    expect(run.state.samples).toHaveLength(1)
    server.pushStep('SUCCESS', 100, 'verdict', null, { result: OUTCOME })
    await done
  })

  it('refuses a second run while one runs', async () => {
    const { server, run } = setUp()
    const first = run.start(REQUEST)
    await tick()
    await run.start({ ...REQUEST, kind: 'pool' })
    expect([server.started, run.request.value]).toEqual([[REQUEST], REQUEST])
    server.pushStep('SUCCESS', 100, 'verdict', null, { result: OUTCOME })
    await first
  })
})
