import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import runFixture from '../../fixtures/fix-run-lab.json'
import planFixture from '../../fixtures/fix-plan-lab.json'
import outcomeFixture from '../../fixtures/fix-outcome-lab.json'
import progressFixture from '../../fixtures/fix-apply-progress-lab.json'
import recordsFixture from '../../fixtures/fix-records-lab.json'
import type { FixApplyRequest, FixOutcome, FixPlan, FixRecord, Job, RunEntry } from '../../api/types'
import { FakeJob } from '../../testing/fakeJob'
import VerdictPanel from './VerdictPanel.vue'

// Recorded on the lab (scripts/record_ui_fixtures.py --only fix): run 1 (desk joined at 10 Gb/s, SMB encryption
// required) names smb-encryption; its fix measured again as run 2 and was put back (the spread overlapped).
const run = runFixture as unknown as RunEntry
const plan = planFixture as unknown as FixPlan
const outcome = outcomeFixture as unknown as FixOutcome
const records = recordsFixture as unknown as FixRecord[]
const progress = progressFixture as unknown as (Job['progress'] & { state: Job['state'] })[]

class Server extends FakeJob {
  started: FixApplyRequest[] = []
  undone: number[] = []
  stored: FixRecord[] = []
  constructor() {
    super(51, 'tengig.fix.apply')
  }
  result = async () => run
  results = async () => [run]
  fixPlan = async () => plan
  fixes = async () => this.stored
  startFixApply = async (request: FixApplyRequest) => (this.started.push(request), 51)
  fixUndo = async (id: number) => (this.undone.push(id), ['fix 1 (smb-encryption): server smb encrypt of smb.conf [global] if_required -> required'])
}
let server = new Server()
vi.mock('../../composables/useSession', () => ({
  currentApi: () => server,
  useSession: () => ({ url: 'ws://10.250.12.1:8611/api/current' }),
}))

async function show() {
  const w = mount(VerdictPanel, { props: { runId: 1 }, attachTo: document.body })
  await flushPromises()
  return w
}

describe('a fix from the verdict', () => {
  beforeEach(() => {
    server = new Server()
  })

  it('shows "Fix…" beside the advice it answers, with the change and the predicted SMB, and nothing beside the others', async () => {
    const w = await show()
    const advice = w.get('[data-test="advice-smb-encryption"]')
    expect(advice.get('[data-test="fix-open-smb-encryption"]').text()).toBe('Fix…')
    expect(advice.get('[data-test="fix-summary"]').text().replace(/\s+/g, ' ')).toBe(
      'server smb encrypt: required → if_required; predicted: SMB read 183.0 → up to 368.7 MB/s, write 168.9 → up to 393.6 MB/s')
    expect(w.findAll('[data-test^="fix-open-"]')).toHaveLength(1)
    expect(w.find('[data-test="advice-pool-below-network"] button').exists()).toBe(false)
    w.unmount()
  })

  it('offers none for a run measured elsewhere (the lab as system lab), and says why', async () => {
    const lab = { ...run, results: { ...run.results, system: 'lab' } }
    server.result = async () => lab
    const w = await show()
    expect(w.findAll('[data-test^="fix-open-"]')).toHaveLength(0)
    expect(w.get('[data-test="fix-elsewhere"]').text()).toContain('This run measured system lab: its fixes (smb-encryption)')
    w.unmount()
  })

  it('asks first: the setting, from -> to, the call and the prediction; Cancel changes nothing', async () => {
    const w = await show()
    await w.get('[data-test="fix-open-smb-encryption"]').trigger('click')
    const dialog = w.get('[data-test="fix-confirm"]')
    expect(dialog.attributes('role')).toBe('dialog')
    expect(dialog.get('[data-test="fix-confirm-setting"]').text()).toBe('server smb encrypt of smb.conf [global]')
    expect(dialog.get('[data-test="fix-confirm-from-to"]').text()).toBe('required → if_required')
    expect(dialog.get('[data-test="fix-confirm-call"]').text()).toBe(
      "server smb encrypt = if_required in smb.conf's [global], then smbcontrol smbd reload-config")
    expect(dialog.findAll('[data-test^="fix-prediction-"]').map((r) => r.text())).toEqual([
      'read183.0 MB/sup to 368.7 MB/s+101.5%Pool', 'write168.9 MB/sup to 393.6 MB/s+133.0%Pool'])
    await dialog.get('[data-test="fix-confirm-no"]').trigger('click')
    await flushPromises()
    expect([w.find('[data-test="fix-confirm"]').exists(), server.started, w.find('[data-test="fix-progress"]').exists()])
      .toEqual([false, [], false])
    w.unmount()
  })

  it('applies it once confirmed: the join command for the re-measure, then before/after with the gain and how sure', async () => {
    const w = await show()
    await w.get('[data-test="fix-open-smb-encryption"]').trigger('click')
    await w.get('[data-test="fix-confirm-yes"]').trigger('click')
    await flushPromises()
    expect(server.started).toEqual([{ run_id: 1, fix: 'smb-encryption', confirm: true }])
    const waiting = progress.findIndex((p) => (p.extra as { phase?: string } | null)?.phase === 'waiting for clients')
    for (const { state, ...p } of progress.slice(0, waiting + 1)) server.push(state, p)
    await flushPromises()
    const token = (progress[waiting].extra as { session: { token: string } }).session.token
    expect(w.get('[data-test="join-command"]').text()).toBe(
      `tengig client join ws://10.250.12.1:8611 --token ${token} --smb-auth-file ~/.nas-smb.auth`)
    expect(w.get('[data-test="fix-open-smb-encryption"]').attributes('disabled')).toBeDefined() // one fix at a time
    server.stored = records
    const { state, ...last } = progress.at(-1)!
    server.push(state, last, { result: outcome })
    await flushPromises()
    expect(w.find('[data-test="join-command"]').exists()).toBe(false)
    const shown = w.get('[data-test="fix-outcome"]')
    expect(shown.get('[data-test="fix-outcome-state"]').text()).toBe('put back')
    expect(shown.findAll('[data-test^="fix-gain-"]').map((r) => r.findAll('th, td').map((c) => c.text()))).toEqual([
      ['read', '183.0 MB/s', '329.8 MB/s', '+80.2%', 'within the spread', 'no real change: the copies overlap'],
      ['write', '168.9 MB/s', '328.6 MB/s', '+94.5%', 'within the spread', 'no real change: the copies overlap'],
    ])
    expect(shown.get('[data-test="fix-outcome-why"]').text()).toContain('put back server smb encrypt of smb.conf [global] to required')
    expect(shown.get('[data-test="fix-outcome-compare"]').attributes('href')).toBe('#/history/1/2')
    expect(w.find('[data-test="fix-undo"]').exists()).toBe(false) // put back: nothing to undo
    expect(w.get('[data-test="fix-done"]').text()).toBe('fix put back (run 2)')
    expect(w.find('[data-test="fix-open-smb-encryption"]').exists()).toBe(true) // put back: it may be tried again
    expect(w.get('[data-test="verdict-fix-note"]').text()).toBe('fix smb-encryption put back (run 2)')
    w.unmount()
  })

  it('offers Undo for a kept fix, asked first', async () => {
    server.stored = [{ ...records[0], state: 'kept', why: 'a real gain' }]
    const w = await show()
    expect(w.get('[data-test="fix-outcome-state"]').text()).toBe('kept')
    expect(w.get('[data-test="fix-done"]').text()).toBe('fix kept (run 2)')
    expect(w.find('[data-test="fix-open-smb-encryption"]').exists()).toBe(false) // in place: Undo, not Fix again
    await w.get('[data-test="fix-undo"]').trigger('click')
    expect(server.undone).toEqual([])
    await w.get('[data-test="fix-undo-confirm"] [data-test="fix-undo-no"]').trigger('click')
    expect(server.undone).toEqual([])
    await w.get('[data-test="fix-undo"]').trigger('click')
    server.stored = [{ ...records[0], state: 'undone', undone: 'put back to required' }]
    await w.get('[data-test="fix-undo-yes"]').trigger('click')
    await flushPromises()
    expect(server.undone).toEqual([1])
    expect(w.get('[data-test="fix-undone"]').text()).toBe('fix 1 (smb-encryption): server smb encrypt of smb.conf [global] if_required -> required')
    expect(w.get('[data-test="fix-outcome-state"]').text()).toBe('undone')
    expect(w.find('[data-test="fix-undo"]').exists()).toBe(false)
    expect(w.get('[data-test="fix-done"]').text()).toBe('fix undone (run 2)')
    w.unmount()
  })
})
