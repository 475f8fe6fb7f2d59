import { describe, expect, it } from 'vitest'
import plan from '../../fixtures/mesh-plan-lab.json'
import verify from '../../fixtures/mesh-verify-lab.json'
import verifyMtu from '../../fixtures/mesh-verify-lab-mtu.json'
import recorded from '../../fixtures/recorded-lab.json'
import type { MeshPlan, MeshVerifyResult } from '../../api/types'
import { LAB_DRAFT, draftToRequest } from './meshDraft'
import { applyConfirmation, applySummary, edgeStatuses } from './meshVerify'

// Recorded on the lab by scripts/record_ui_fixtures.py (make ui-fixtures; see recorded-lab.json):
// the lab's three hosts as the mesh view's preset plans them (desk-nas at 1 Gb/s, the others 10 Gb/s),
// applied on a bare lab, then tengig.mesh.verify: every cable passes (mesh-verify-lab.json); and the
// same verify with desk's eth-nas at MTU 1400 against nas's 1500, where the DF pings across C02 fail
// from both ends (mesh-verify-lab-mtu.json). The numbers are real, so they are checked by range.
const lab = plan as unknown as MeshPlan
const passed = verify as MeshVerifyResult
const mismatch = verifyMtu as MeshVerifyResult

describe('the recorded fixtures', () => {
  it('are what the mesh view sends for its lab preset', () => {
    const out = draftToRequest(LAB_DRAFT)
    expect(out.ok && out.request).toEqual(recorded.mesh.request)
    expect(lab.cables.map((c) => [c.id, c.a.host, c.b.host, c.speed_bps])).toEqual([
      ['C01', 'desk', 'lab', 10e9], ['C02', 'desk', 'nas', 1e9], ['C03', 'lab', 'nas', 10e9]])
  })
})

describe('edgeStatuses on a mesh that passed', () => {
  const statuses = edgeStatuses(lab, passed)

  it('calls every cable ok, with each end checked', () => {
    expect(passed.ok).toBe(true)
    expect([...statuses.keys()]).toEqual(['C01', 'C02', 'C03'])
    expect([...statuses.values()].map((s) => s.state)).toEqual(['ok', 'ok', 'ok'])
    for (const s of statuses.values()) {
      expect(s.ends.map((e) => [e.ping, e.df, e.name])).toEqual([['ok', 'ok', 'ok'], ['ok', 'ok', 'ok']])
      expect(s.problems).toEqual([])
    }
  })

  it('says what each end checked, in the plan\'s end order', () => {
    const c02 = statuses.get('C02')!
    expect(c02.ends.map((e) => `${e.host}:${e.port}`)).toEqual(['desk:eth-nas', 'nas:eth-desk'])
    expect(c02.ends[1].text).toMatch(/^ping ok \d+\.\d\d ms · DF 1472 ok · name desk ok$/)
    expect(c02.ends[1].rttMs).toBeGreaterThan(0)
  })

  it('shows measured goodput against the ceiling per direction, in Mb/s', () => {
    const c02 = statuses.get('C02')!
    expect(c02.directions.map((d) => `${d.sender}>${d.receiver}`)).toEqual(['desk>nas', 'nas>desk'])
    for (const d of c02.directions) {
      expect(d.text).toMatch(new RegExp(`^${d.sender} → ${d.receiver} 9[0-4]\\d / 941 Mb/s \\((9\\d|10\\d)%\\)$`))
      expect(d.ceilingMbps).toBe(941) // 1 Gb/s at MTU 1500
      expect(d.goodputMbps).toBeGreaterThan(0.9 * 941)
      expect(d.ok).toBe(true)
    }
    // the 10 Gb/s cables: ten times the ceiling, and reached
    expect(statuses.get('C01')!.directions.map((d) => d.ceilingMbps)).toEqual([9415, 9415])
    expect(statuses.get('C01')!.directions.every((d) => d.goodputMbps > 0.9 * 9415)).toBe(true)
  })

  it('turns a direction below the minimum into a problem of its cable', () => {
    const slow = { ...passed, matrix: passed.matrix.map((m) => (m.cable === 'C03' && m.sender === 'nas'
      ? { ...m, goodput_bps: m.ceiling_bps * 0.5, percent_of_ceiling: 50, reaches_ceiling: false } : m)) }
    const s = edgeStatuses(lab, slow)
    expect([...s.values()].map((e) => e.state)).toEqual(['ok', 'ok', 'bad'])
    expect(s.get('C03')!.problems).toEqual(['nas → lab 4707 / 9415 Mb/s (50%): below 90% of the ceiling'])
  })

  it('never calls a cable ok when nothing was checked on it', () => {
    const empty = edgeStatuses(lab, { ...passed, links: [], matrix: [], asymmetric: [], problems: [] })
    expect([...empty.values()].map((s) => s.state)).toEqual(['unchecked', 'unchecked', 'unchecked'])
    expect(empty.get('C01')?.ends[0].text).toBe('not checked from this end')
  })
})

describe('edgeStatuses on an MTU mismatch', () => {
  const statuses = edgeStatuses(lab, mismatch)

  it('marks the mismatched cable bad and leaves the others ok', () => {
    expect(mismatch.ok).toBe(false)
    expect([...statuses.values()].map((s) => s.state)).toEqual(['ok', 'bad', 'ok'])
  })

  it('shows that small pings pass and only the DF pings fail, from both ends', () => {
    const c02 = statuses.get('C02')!
    expect(c02.ends.map((e) => [e.host, e.ping, e.df, e.name])).toEqual([['desk', 'ok', 'bad', 'ok'], ['nas', 'ok', 'bad', 'ok']])
    expect(c02.ends[0].text).toMatch(/^ping ok \d+\.\d\d ms · DF 1472 FAILED · name nas ok$/)
    expect(c02.problems).toHaveLength(2)
    expect(c02.problems.every((p) => p.includes("Don't Fragment"))).toBe(true)
    // TCP still fills the cable (it sizes its segments to the path): throughput alone would not show it
    expect(c02.directions.every((d) => d.ok)).toBe(true)
  })

  it('counts a cable checked without throughput by its pings and names alone', () => {
    const noIperf = edgeStatuses(lab, { ...mismatch, matrix: [], asymmetric: [] })
    expect([...noIperf.values()].map((s) => s.state)).toEqual(['ok', 'bad', 'ok'])
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
