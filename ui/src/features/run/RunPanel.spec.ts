import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { BenchSystemState, JobState, Target } from '../../api/types'
import { clearErrors } from '../../composables/useErrors'
import { FakeJob } from '../../testing/fakeJob'
import RunPanel from './RunPanel.vue'

const TARGET = { name: 'hdd-15k', title: '15k rpm HDD', read_bytes_per_s: 223_400_000 } as Target
const SYSTEMS: BenchSystemState[] = [{ name: 'lab', usable: true, reason: 'the lab is up', joins: false }]

/** The session's API as the Run view uses it; the job's snapshots are pushed by the test. */
const job = new FakeJob()
const server = {
  get aborted() { return job.aborted },
  targets: async () => [TARGET],
  benchSystems: async () => SYSTEMS,
  startBench: async () => 41,
  followJob: job.followJob.bind(job),
  abortJob: job.abortJob.bind(job),
  push(state: JobState, percent: number, error: string | null = null) {
    job.push(state, { percent, description: 'iperf3 desk', extra: null }, { error })
  },
}
vi.mock('../../composables/useSession', () => ({
  currentApi: () => server,
  useSession: () => ({ url: 'ws://10.99.1.1:8610/api/current' }),
}))

async function startRun() {
  const w = mount(RunPanel)
  await flushPromises()
  expect(w.get('[data-test="run-target"]').text()).toBe('15k rpm HDD (223.4 MB/s read)')
  await w.get('form').trigger('submit')
  await flushPromises()
  server.push('RUNNING', 40)
  await flushPromises()
  return w
}

describe('RunPanel', () => {
  beforeEach(() => {
    clearErrors()
    job.aborted = []
  })

  it('shows a run stopped on request as aborted, never as failed', async () => {
    const w = await startRun()
    await w.get('[data-test="run-cancel"]').trigger('click')
    await flushPromises()
    expect(server.aborted).toEqual([41])
    expect(w.get('[data-test="run-cancel"]').text()).toBe('Cancelling…')
    server.push('ABORTED', 40)
    await flushPromises()
    expect(w.get('[data-test="run-state"]').text()).toBe('ABORTED')
    expect(w.get('[data-test="run-failure"]').text()).toBe(
      'No result: the run was aborted (stopped on request), so nothing is shown as measured (the error is at the top).')
    expect(w.get('[data-test="step-net:first client"]').classes()).toContain('aborted')
    expect(w.findAll('.steps li.failed')).toHaveLength(0)
    expect(w.get('[data-test="step-verdict"]').classes()).toContain('pending')
  })

  it('shows a run the server failed as failed', async () => {
    const w = await startRun()
    server.push('FAILED', 40, 'iperf3: unable to connect')
    await flushPromises()
    expect(w.get('[data-test="run-failure"]').text()).toMatch(/^No result: the run failed, so nothing is shown as measured/)
    expect(w.get('[data-test="step-net:first client"]').classes()).toContain('failed')
  })
})
