import { describe, expect, it } from 'vitest'
import run from '../../fixtures/run-lab-desk-1g.json'
import type { DirectionVerdict, Verdict } from '../../api/types'
import { ceilingChart, directionRow, marginText, verdictView } from './verdictView'

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
  it('keeps the summary, the target with its source, and the advice', () => {
    const view = verdictView(verdict)
    expect(view.rows.map((r) => r.direction)).toEqual(['read', 'write'])
    expect(view.targetSource.length).toBeGreaterThan(0)
    expect(view.advice[0].rule).toBe('link-below-target')
    expect(view.summary).toBe(verdict.summary)
  })
})
