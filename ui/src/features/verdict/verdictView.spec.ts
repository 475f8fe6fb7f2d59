import { describe, expect, it } from 'vitest'
import run from '../../fixtures/run-lab-desk-1g.json'
import joinedReport from '../../fixtures/run-joined-desk-lab.json'
import recorded from '../../fixtures/recorded-lab.json'
import type { DirectionVerdict, Verdict } from '../../api/types'
import { ceilingChart, directionRow, marginText, multiClientNames, reportOf, runVerdicts, verdictView } from './verdictView'

// A real lab run: desk -> nas over a 1 Gb/s link against the 15k rpm HDD (223.4 MB/s read).
const verdict = run.verdict as unknown as Verdict
const read = verdict.directions.find((d) => d.direction === 'read')!
const write = verdict.directions.find((d) => d.direction === 'write')!

describe('directionRow', () => {
  it('shows SMB against the target with the margin and the bottleneck', () => {
    expect(directionRow(read)).toEqual({
      direction: 'read', smb: '115.5 MB/s', target: '223.4 MB/s', result: 'loses by 48.3%',
      outcome: 'loses', bottleneck: 'Link',
    })
  })

  it('says "no target figure" instead of a zero when the target has no write number', () => {
    expect(directionRow(write)).toMatchObject({ target: 'no target figure', result: 'no target figure', outcome: 'unknown' })
  })

  it('says "not measured" when SMB did not run', () => {
    const dv: DirectionVerdict = { ...read, smb_bytes_per_s: null, margin_percent: null, beats_target: null }
    expect(directionRow(dv)).toMatchObject({ smb: 'not measured', result: 'not measured' })
  })

  it('words a win', () => {
    expect(marginText({ ...read, smb_bytes_per_s: 300e6, margin_percent: 34.29, beats_target: true })).toBe('beats by 34.3%')
  })
})

describe('ceilingChart', () => {
  const chart = ceilingChart(read)

  it('orders the chain pool, link, network, SMB and marks measured vs estimated', () => {
    expect(chart.bars.map((b) => [b.name, b.provenance])).toEqual([
      ['Pool', 'measured'], ['Link', 'estimated'], ['Network', 'measured'], ['SMB', 'measured'],
    ])
    expect(chart.bars.map((b) => b.value)).toEqual(['310.3 MB/s', '117.7 MB/s', '117.0 MB/s', '115.5 MB/s'])
  })

  it('puts every bar and the target line on one scale with headroom', () => {
    // scale = 1.1 x the largest (the pool, 310.3 MB/s)
    expect(chart.bars[0].widthPercent).toBe(90.9)
    expect(chart.targetPercent).toBeCloseTo((223.4 / 341.363) * 100, 0)
    expect(chart.targetText).toBe('223.4 MB/s')
    expect(chart.bars.filter((b) => b.bottleneck).map((b) => b.name)).toEqual(['Link'])
  })

  it('has no target line without a target figure and lists chain parts not measured', () => {
    expect(ceilingChart(write).targetPercent).toBeNull()
    const netOnly: DirectionVerdict = { ...read, ceilings: read.ceilings.filter((c) => c.component === 'network') }
    expect(ceilingChart(netOnly).missing).toEqual(['Pool', 'Link', 'SMB'])
  })

  it('refuses a broken number instead of drawing it as zero', () => {
    const broken: DirectionVerdict = { ...read, ceilings: [{ ...read.ceilings[0], bytes_per_s: Number.NaN }] }
    expect(() => ceilingChart(broken)).toThrow(/Cannot format throughput/)
  })
})

describe('verdictView', () => {
  it('draws read and write on one scale: equal values get equal bars', () => {
    // The same 117.7 MB/s link ceiling in both directions; the pool differs (310.3 read, 470.1 write).
    const [readChart, writeChart] = verdictView(verdict).charts
    const link = (c: typeof readChart) => c.bars.find((b) => b.component === 'link')!
    expect(link(readChart).value).toBe(link(writeChart).value)
    expect(link(readChart).widthPercent).toBe(link(writeChart).widthPercent)
    // the scale is 1.1 x the largest figure of the whole verdict (the write pool, 470.1 MB/s)
    expect(writeChart.bars[0].widthPercent).toBe(90.9)
    expect(readChart.targetPercent).toBeCloseTo((223.4 / (470.114633975 * 1.1)) * 100, 0)
  })

  it('keeps the summary, the target with its source, and the advice', () => {
    const view = verdictView(verdict)
    expect(view.rows.map((r) => r.direction)).toEqual(['read', 'write'])
    expect(view.targetSource.length).toBeGreaterThan(0)
    expect(view.advice[0].rule).toBe('link-below-target')
    expect(view.summary).toBe(verdict.summary)
  })
})

// A run two desktops joined (desk and lab, each over its own 1 Gb/s link to the NAS), their SMB copies
// measured one at a time and then all at once: run-joined-desk-lab.json is that BenchReport, recorded on the
// lab (recorded-lab.json "joined"; scripts/record_ui_fixtures.py --only joined).
describe('runVerdicts with several clients', () => {
  const report = reportOf(joinedReport as unknown as Record<string, unknown>)!
  const multi = runVerdicts(report, report.clients[0].verdict ?? null)

  it('says where the fixture comes from: recorded from the run the panel would start', () => {
    const joined = recorded.joined as { hand_made?: boolean; recorded: string | null; request: unknown; files: Record<string, string> }
    expect(joined.files['run-joined-desk-lab.json']).toBeTruthy()
    expect(joined.request).toEqual({ system: 'local', kind: 'smb', join: 2, share: 'share', repeats: 1 })
    expect(joined.hand_made).toBeUndefined()
    expect(joined.recorded).not.toBeNull()
  })

  it('reads the fixture as a BenchReport of two joined clients with their aggregate', () => {
    expect(report.clients.map((c) => c.client)).toEqual(['desk', 'lab'])
    expect(report.smb_concurrent?.clients).toEqual(['desk', 'lab'])
    expect(report.aggregate_verdict).not.toBeNull()
    expect(multiClientNames(report)).toEqual(['desk', 'lab'])
  })

  it('shows the aggregate first: all clients at once against the target, bounded by the NAS\'s two ports', () => {
    expect(multi.multi).toBe(true)
    expect(multi.single).toBeNull()
    const agg = multi.aggregate!
    expect(agg.heading).toBe('All clients at once')
    expect(agg.clientsText).toBe('2 clients at once (desk, lab)')
    expect(agg.engine).toMatch(/start barrier/)
    expect(agg.summary).toBe(report.aggregate_verdict!.summary)
    expect(agg.summary).not.toBe(report.clients[0].verdict!.summary)
    expect(agg.rows[0]).toEqual({
      direction: 'read', smb: '195.8 MB/s', target: '223.4 MB/s', result: 'loses by 12.3%', outcome: 'loses', bottleneck: 'Link',
    })
    expect(agg.rows[1]).toMatchObject({ direction: 'write', smb: '188.5 MB/s', bottleneck: 'Link' })
    const link = agg.charts[0].bars.find((b) => b.component === 'link')!
    expect(link).toMatchObject({ value: '235.4 MB/s', provenance: 'estimated', bottleneck: true }) // 2 x 117.7 MB/s
    expect(link.label).toMatch(/eth-desk 1 Gb\/s \+ eth-lab 1 Gb\/s/)
    expect(agg.charts[0].missing).toEqual(['Pool', 'Network']) // an smb run: no pool, no iperf3
  })

  it('shows each client\'s own verdict under its own name, in the run\'s order', () => {
    expect(multi.clients.map((c) => c.name)).toEqual(['desk', 'lab'])
    const [desk, lab] = multi.clients
    expect(desk.view!.summary).toBe(report.clients.find((c) => c.client === 'desk')!.verdict!.summary)
    expect(lab.view!.summary).toBe(report.clients.find((c) => c.client === 'lab')!.verdict!.summary)
    expect(desk.view!.rows[0]).toMatchObject({ smb: '112.9 MB/s', result: 'loses by 49.5%', bottleneck: 'Link' })
    expect(lab.view!.rows[0]).toMatchObject({ smb: '112.2 MB/s', result: 'loses by 49.8%', bottleneck: 'Link' })
    expect(desk.headline).toBe('read 112.9 MB/s, loses by 49.5%, bottleneck Link; write 110.5 MB/s, no target figure, bottleneck Link')
    expect(desk.together).toBe('while all copied at once: read 108.4 MB/s, write 100.2 MB/s')
    expect(lab.together).toBe('while all copied at once: read 104.2 MB/s, write 96.4 MB/s')
  })

  it('keeps a client\'s name with its own verdict when the clients come in another order', () => {
    const swapped = runVerdicts({ ...report, clients: [...report.clients].reverse() }, null)
    expect(swapped.clients.map((c) => [c.name, c.view!.rows[0].smb])).toEqual([['lab', '112.2 MB/s'], ['desk', '112.9 MB/s']])
  })

  it('says so when a multi-client run has no aggregate verdict, and keeps the clients\' own', () => {
    const none = runVerdicts({ ...report, smb_concurrent: null, aggregate_verdict: null }, null)
    expect(none.multi).toBe(true)
    expect(none.aggregate).toBeNull()
    expect(none.noAggregate).toMatch(/no aggregate verdict/)
    expect(none.clients).toHaveLength(2)
    expect(none.clients[0].together).toBeNull()
    const older = { ...report } as Record<string, unknown> // a run stored before these fields existed
    delete older.aggregate_verdict
    delete older.smb_concurrent
    expect(runVerdicts(reportOf(older), null).aggregate).toBeNull()
  })

  it('changes nothing for a run with one client: its verdict as before, no aggregate', () => {
    const one = runVerdicts(reportOf(run.results as Record<string, unknown>), verdict)
    expect(one).toMatchObject({ multi: false, aggregate: null, clients: [] })
    expect(one.single).toEqual(verdictView(verdict))
    expect(runVerdicts(null, verdict).single).toEqual(verdictView(verdict))
    expect(runVerdicts(null, null).single).toBeNull()
    expect(reportOf(null)).toBeNull()
    expect(reportOf({ clients: 'desk' })).toBeNull()
  })
})
