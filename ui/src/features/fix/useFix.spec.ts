import { beforeEach, describe, expect, it } from 'vitest'
import { watch } from 'vue'
import planFixture from '../../fixtures/fix-plan-lab.json'
import outcomeFixture from '../../fixtures/fix-outcome-lab.json'
import progressFixture from '../../fixtures/fix-apply-progress-lab.json'
import recordsFixture from '../../fixtures/fix-records-lab.json'
import type { FixApplyRequest, FixOutcome, FixPlan, FixRecord, Job } from '../../api/types'
import { ApiError } from '../../api/errors'
import { clearErrors, useErrors } from '../../composables/useErrors'
import { FakeJob } from '../../testing/fakeJob'
import { useFix, type FixApi } from './useFix'

const plan = planFixture as unknown as FixPlan
const outcome = outcomeFixture as unknown as FixOutcome
const records = recordsFixture as unknown as FixRecord[]
/** tengig.fix.apply's progress on the lab, snapshot by snapshot, as the panel's job watcher receives it. */
const progress = progressFixture as unknown as (Job['progress'] & { state: Job['state'] })[]

/** A server whose tengig.fix.apply job the test drives (testing/fakeJob.ts). */
class FakeFixes extends FakeJob implements FixApi {
  started: FixApplyRequest[] = []
  undone: number[] = []
  stored: FixRecord[] = []
  planned: number[] = []

  constructor() {
    super(51, 'tengig.fix.apply')
  }
  async fixPlan(runId: number) {
    this.planned.push(runId)
    return plan
  }
  async fixes() {
    return this.stored
  }
  async startFixApply(request: FixApplyRequest) {
    this.started.push(request)
    return 51
  }
  async fixUndo(runId: number) {
    this.undone.push(runId)
    return [`fix 1 (smb-encryption): server smb encrypt of smb.conf [global] if_required -> required`]
  }
}

const tick = () => new Promise((r) => setTimeout(r, 0))

describe('useFix', () => {
  beforeEach(() => clearErrors())

  it('shows the change for confirmation and applies nothing until it is confirmed', async () => {
    const server = new FakeFixes()
    const f = useFix({ api: () => server })
    await f.load(1)
    expect([server.planned, f.plan.value, f.records.value]).toEqual([[1], plan, []])
    f.choose(plan.fixes[0])
    expect(f.chosen.value).toEqual(plan.fixes[0])
    f.dismiss()
    await tick()
    expect([f.chosen.value, server.started, f.job.state.phase]).toEqual([null, [], 'idle'])
    expect(await f.confirm()).toBeNull() // nothing chosen: nothing to confirm
    expect(server.started).toEqual([])
  })

  it('applies the confirmed fix, shows the re-measure\'s join session, and ends with the outcome', async () => {
    const server = new FakeFixes()
    const f = useFix({ api: () => server })
    await f.load(1)
    f.choose(plan.fixes[0])
    const done = f.confirm()
    await tick()
    expect(server.started).toEqual([{ run_id: 1, fix: 'smb-encryption', confirm: true }])
    expect([f.chosen.value, f.job.state.phase]).toEqual([null, 'running'])
    const waiting = progress.findIndex((p) => (p.extra as { phase?: string } | null)?.phase === 'waiting for clients')
    for (const { state, ...p } of progress.slice(0, waiting + 1)) server.push(state, p)
    expect(f.session.value?.token).toMatch(/^tgb-/)
    expect([f.session.value?.expected, f.session.value?.joined, f.waitingForClients.value]).toEqual([1, [], true])
    const joined = progress.findIndex((p) => (p.extra as { session?: { joined: unknown[] } })?.session?.joined.length)
    for (const { state, ...p } of progress.slice(waiting + 1, joined + 1)) server.push(state, p)
    expect(f.session.value?.joined.map((c) => c.name)).toEqual(['desk'])
    expect(f.waitingForClients.value).toBe(false)
    server.stored = records
    const { state, ...last } = progress.at(-1)!
    server.push(state, last, { result: outcome })
    expect(await done).toEqual(outcome)
    expect([f.job.state.phase, f.job.state.result, f.records.value]).toEqual(['done', outcome, records])
    expect(useErrors().errors).toHaveLength(0)
  })

  it('undoes the run\'s kept fixes and reads its fixes again', async () => {
    const server = new FakeFixes()
    const f = useFix({ api: () => server })
    await f.load(1)
    server.stored = [{ ...records[0], state: 'undone', undone: 'put back to required' }]
    await f.undo()
    expect(server.undone).toEqual([1])
    expect(f.undone.value).toEqual(['fix 1 (smb-encryption): server smb encrypt of smb.conf [global] if_required -> required'])
    expect(f.records.value[0].state).toBe('undone')
  })

  it('shows what was put back only with the fixes read again, so the page never says undone and kept at once', async () => {
    const server = new FakeFixes()
    const f = useFix({ api: () => server })
    await f.load(1)
    server.stored = [{ ...records[0], state: 'undone', undone: 'put back to required' }]
    const statesWhenShown: string[] = []
    watch(f.undone, () => statesWhenShown.push(...f.records.value.map((r) => r.state)), { flush: 'sync' })
    await f.undo()
    expect(statesWhenShown).toEqual(['undone'])
  })

  it('a run the server plans no fixes for keeps its verdict: the advice stays words, with why', async () => {
    const server = new FakeFixes()
    server.fixPlan = async () => {
      throw new ApiError('tengig.fix.plan', 22, 'run 3 failed and has no verdict to fix from; fix from a run that succeeded')
    }
    const f = useFix({ api: () => server })
    await f.load(3)
    expect([f.plan.value, f.planNote.value]).toEqual([null, 'No fixes offered: tengig.fix.plan failed: run 3 failed and has no verdict to fix from; fix from a run that succeeded'])
    expect(useErrors().errors).toHaveLength(0)
  })
})
