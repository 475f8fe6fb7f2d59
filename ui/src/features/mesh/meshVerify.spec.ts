import { describe, expect, it } from 'vitest'
import plan from '../../fixtures/mesh-plan-lab.json'
import verify from '../../fixtures/mesh-verify-lab.json'
import type { MeshPlan, MeshVerifyResult } from '../../api/types'
import { applyConfirmation, applySummary, edgeStatuses } from './meshVerify'

// The lab plan, and a MeshVerifyResult of its shape where the 1 Gb/s desk-nas cable (C02) fails its
// DF ping from nas and reaches only 65% of its ceiling from nas to desk; C01 and C03 pass.
const lab = plan as unknown as MeshPlan
const result = verify as MeshVerifyResult

describe('edgeStatuses', () => {
  const statuses = edgeStatuses(lab, result)

  it('gives every plan cable a state', () => {
    expect([...statuses.keys()]).toEqual(['C01', 'C02', 'C03'])
    expect(statuses.get('C01')?.state).toBe('ok')
    expect(statuses.get('C03')?.state).toBe('ok')
    expect(statuses.get('C02')?.state).toBe('bad')
  })

  it('shows each end\'s ping, DF and name checks', () => {
    const c02 = statuses.get('C02')!
    expect(c02.ends.map((e) => [e.host, e.ping, e.df, e.name])).toEqual([['desk', 'ok', 'ok', 'ok'], ['nas', 'ok', 'bad', 'ok']])
    expect(c02.ends[1].text).toBe('ping ok 0.06 ms · DF 1472 FAILED · name desk ok')
  })

  it('shows measured goodput against the ceiling per direction', () => {
    const c02 = statuses.get('C02')!
    expect(c02.directions.map((d) => d.text)).toEqual([
      'desk → nas 936 / 941 Mb/s (99%)',
      'nas → desk 612 / 941 Mb/s (65%)',
    ])
    expect(c02.directions.map((d) => d.ok)).toEqual([true, false])
    expect(c02.problems).toHaveLength(3)
    expect(c02.problems.join('\n')).toMatch(/Don't Fragment/)
    expect(c02.problems.join('\n')).toMatch(/differ by 35%/)
  })

  it('never calls a cable ok when nothing was checked on it', () => {
    const empty = edgeStatuses(lab, { ...result, links: [], matrix: [], asymmetric: [], problems: [] })
    expect([...empty.values()].map((s) => s.state)).toEqual(['unchecked', 'unchecked', 'unchecked'])
    expect(empty.get('C01')?.ends[0].text).toBe('not checked from this end')
  })

  it('counts a cable checked without throughput as ok when its pings and names pass', () => {
    const noIperf = edgeStatuses(lab, { ...result, matrix: [], asymmetric: [] })
    expect(noIperf.get('C01')?.state).toBe('ok')
    expect(noIperf.get('C02')?.state).toBe('bad')
  })
})

describe('applySummary', () => {
  it('lists changes, or says the host already matched', () => {
    expect(applySummary([
      { host: 'nas', changed: true, changes: ['eth-desk: address none -> 10.250.1.3/24'], persistent: true, hosts_file: null },
      { host: 'desk', changed: false, changes: [], persistent: false, hosts_file: '/etc/hosts' },
    ])).toEqual([
      { host: 'nas', persistent: true, lines: ['eth-desk: address none -> 10.250.1.3/24'] },
      { host: 'desk', persistent: false, lines: ['already as planned'] },
    ])
  })

  it('names the hosts in the confirmation', () => {
    expect(applyConfirmation('lab', ['nas', 'desk'])).toMatch(/^Apply the plan on the lab: nas, desk will/)
    expect(applyConfirmation('truenas', ['nas'])).toMatch(/^Apply the plan on the TrueNAS \(commit, probe, then checkin\): nas will/)
  })
})
