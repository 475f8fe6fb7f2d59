import { flushPromises, mount } from '@vue/test-utils'
import { describe, expect, it, vi } from 'vitest'
import runFixture from '../../fixtures/fix-run-lab.json'
import compareFixture from '../../fixtures/fix-compare-lab.json'
import recordsFixture from '../../fixtures/fix-records-lab.json'
import type { Comparison, FixRecord, RunEntry } from '../../api/types'
import HistoryPanel from './HistoryPanel.vue'

// Recorded on the lab (scripts/record_ui_fixtures.py --only fix): run 2 measured SMB again after run 1's
// smb-encryption fix; tengig.results.compare(1, 2) and tengig.fix.query as they answered.
const before = runFixture as unknown as RunEntry
const after: RunEntry = { ...before, id: 2, kind: 'smb' }
const server = {
  compared: [] as [number, number][],
  results: async () => [after, before],
  fixes: async () => recordsFixture as unknown as FixRecord[],
  compare: async (a: number, b: number) => (server.compared.push([a, b]), compareFixture as unknown as Comparison),
}
vi.mock('../../composables/useSession', () => ({ currentApi: () => server }))

describe('History and a fix', () => {
  it('opens on a fix\'s pair (#/history/1/2): the two runs compared, and the fix with its gain and how sure', async () => {
    const w = mount(HistoryPanel, { props: { pair: [1, 2] } })
    await flushPromises()
    expect(server.compared).toEqual([[1, 2]])
    const fix = w.get('[data-test="comparison-fix"]')
    expect(fix.text()).toContain('Run 2 measured SMB again after fix smb-encryption from run 1')
    expect(fix.get('[data-test="fix-outcome-state"]').text()).toBe('put back')
    expect(fix.findAll('[data-test^="fix-gain-"]').map((r) => r.findAll('td').map((c) => c.text()))).toEqual([
      ['183.0 MB/s', '329.8 MB/s', '+80.2%', 'within the spread', 'no real change: the copies overlap'],
      ['168.9 MB/s', '328.6 MB/s', '+94.5%', 'within the spread', 'no real change: the copies overlap'],
    ])
    expect(w.findAll('[data-test="history-fix"]').map((n) => n.text())).toEqual([
      're-measure of fix smb-encryption from run 1 (put back)', 'fix smb-encryption put back (run 2)'])
  })
})
