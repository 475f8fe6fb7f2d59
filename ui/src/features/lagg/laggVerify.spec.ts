import { describe, expect, it } from 'vitest'
import nicsFixture from '../../fixtures/lagg-nics-lab.json'
import planFixture from '../../fixtures/lagg-plan-lab.json'
import progressFixture from '../../fixtures/lagg-verify-lab-progress.json'
import recorded from '../../fixtures/recorded-lab.json'
import verifyFixture from '../../fixtures/lagg-verify-lab.json'
import type { Job, LaggPlan, LaggVerification, Nic } from '../../api/types'
import { addSample, type LiveSample } from '../../lib/liveSamples'
import { EMPTY_DRAFT, candidateNics, draftToRequest, planHeadline } from './laggForm'
import {
  EMPTY_MEASURE, liveTests, measureOptions, verificationHeadline, verificationTests,
} from './laggVerify'

// Recorded on the lab by scripts/record_ui_fixtures.py (make ui-fixtures; see recorded-lab.json): every
// cable at 1 Gb/s, the NAS's two cable ends planned as an LACP bond for 4 clients, measured from desk
// with 2 s per test. This kernel has no bonding driver, so the tests run to the NAS's address on desk's
// cable: eth-desk carries every byte and eth-lab is idle; 1 flow is as expected, 4 flows at the low end.
const nics = nicsFixture as Nic[]
const plan = planFixture as unknown as LaggPlan
const verification = verifyFixture as LaggVerification
const LAB_DRAFT = { ...EMPTY_DRAFT, platform: 'linux' as const, topology: 'lacp-switch' as const, clientCount: '4',
  clearMemberConfig: true }

describe('the recorded fixtures', () => {
  it('are what the LAGG view sends for the lab NAS with member config cleared', () => {
    expect(candidateNics(nics).map((n) => n.name)).toEqual(['eth-desk', 'eth-lab'])
    const out = draftToRequest(LAB_DRAFT, candidateNics(nics))
    expect(out.ok && { ...out.request, nics: 'lagg-nics-lab.json' }).toEqual(recorded.lagg.request)
    expect(measureOptions({ ...EMPTY_MEASURE, seconds: '2', omit: '1' })).toEqual({ ok: true, options: recorded.lagg.verify_options })
  })

  it('plan both cable ends, clearing their addresses', () => {
    expect(planHeadline(plan)).toMatch(/^bond1: LACP \(802\.3ad\) over eth-desk, eth-lab, hash LAYER3\+4/)
    expect(plan.members.map((m) => m.clear_config)).toEqual([['address 10.250.12.1/24'], ['address 10.250.13.1/24']])
  })
})

describe('measureOptions', () => {
  it('sends seconds and omit, and only the addresses given', () => {
    expect(measureOptions(EMPTY_MEASURE)).toEqual({ ok: true, options: { client: 'desk', seconds: 5, omit: 2 } })
    expect(measureOptions({ ...EMPTY_MEASURE, client: ' ', laggAddress: '10.250.12.1', clientAddress: '10.250.12.2' }))
      .toEqual({ ok: true, options: { seconds: 5, omit: 2, lagg_address: '10.250.12.1', client_address: '10.250.12.2' } })
  })

  it('names the option path of every mistake, as the server would', () => {
    const out = measureOptions({ client: 'Desk 1', seconds: '1', omit: 'x', laggAddress: '10.250.12', clientAddress: '300.1.1.1' })
    expect(out.ok ? [] : out.errors.map(([f]) => f)).toEqual(
      ['options.client', 'options.seconds', 'options.omit', 'options.lagg_address', 'options.client_address'])
    expect(out.ok ? '' : out.errors[1][1]).toBe('"1": measure each test for 2 to 120 seconds')
    expect(measureOptions({ ...EMPTY_MEASURE, seconds: '121' }).ok).toBe(false)
    expect(measureOptions({ ...EMPTY_MEASURE, seconds: '120', omit: '0' }).ok).toBe(true)
  })
})

describe('verificationTests', () => {
  const tests = verificationTests(verification)

  it('gives one view per test, reads first, each with measured vs expected in Mb/s / Gb/s', () => {
    expect(tests.map((t) => t.title)).toEqual([
      'read (NAS sends), 1 flow', 'read (NAS sends), 4 flows', 'write (NAS receives), 1 flow', 'write (NAS receives), 4 flows'])
    for (const t of tests) {
      expect(t.measured).toMatch(/^9[34]\d\.\d Mb\/s$/) // a 1 Gb/s cable's goodput, measured
    }
    expect(tests.map((t) => [t.expected, t.low])).toEqual([
      ['941.5 Mb/s', '941.5 Mb/s'], ['1.77 Gb/s', '941.5 Mb/s'], ['941.5 Mb/s', '941.5 Mb/s'], ['1.77 Gb/s', '941.5 Mb/s']])
  })

  it('says the status in words with the reason', () => {
    expect(tests.map((t) => [t.status, t.statusText])).toEqual([
      ['as-expected', 'as expected'], ['low-end', "at the plan's low end"],
      ['as-expected', 'as expected'], ['low-end', "at the plan's low end"]])
    expect(tests[0].percent).toMatch(/^(9\d|10\d)% of expected$/)
    expect(tests[1].percent).toMatch(/^5\d% of expected$/)
    expect(tests[1].reason).toMatch(/eth-desk carried 100% of the bytes: the hash \(LAYER3\+4\) put the flows on one member/)
  })

  it('gives each member its share of the bytes and marks the idle one', () => {
    for (const t of tests) {
      expect(t.members.map((m) => [m.name, m.idle])).toEqual([['eth-desk', false], ['eth-lab', true]])
      expect(t.idle).toEqual(['eth-lab'])
      expect(t.members[0].percent).toBe(100)
      expect(t.members[0].text).toMatch(/^eth-desk 100\.0% \(\d{3}\.\d MB\)$/)
      expect(t.members[1].text).toMatch(/^eth-lab idle: 0\.0% \(\d+ B\)$/)
    }
    expect(new Set(tests.map((t) => t.skewText))).toEqual(new Set(['eth-desk carried it; eth-lab idle (under 1% of the bytes)']))
  })

  it('says how uneven shared members are, and shows a test without counters without bars', () => {
    const even = { ...verification, verdict: { ...verification.verdict, balance: [
      { direction: 'read' as const, flows: 4, shares: [{ name: 'eth-desk', bytes: 600, share: 0.6 }, { name: 'eth-lab', bytes: 400, share: 0.4 }],
        skew: 1.5, cv: 0.2, idle: [] }] } }
    const [read1, read4] = verificationTests(even)
    expect(read1.members).toEqual([])
    expect(read1.skewText).toBeNull()
    expect(read4.members.map((m) => [m.text, m.percent])).toEqual([['eth-desk 60.0% (600 B)', 60], ['eth-lab 40.0% (400 B)', 40]])
    expect(read4.skewText).toBe('busiest 1.5× the quietest')
    const close = { ...even.verdict.balance[0], skew: 1.04 }
    expect(verificationTests({ ...even, verdict: { ...even.verdict, balance: [close] } })[1].skewText).toBe('even (busiest 1.04× the quietest)')
  })

  it('heads the result with where it measured and what it found', () => {
    expect(verificationHeadline(verification)).toBe(
      "Measured from desk to nas at 10.250.12.1: 2 as expected, 2 at the plan's low end; eth-lab idle in every test.")
  })
})

describe('liveTests', () => {
  it('lists each finished test with its rate as the job reports it', () => {
    // the recorded job's progress snapshots, fed as the watcher hands them over
    let samples: LiveSample[] = []
    let last: string | null = null
    const descriptions: string[] = []
    for (const [i, snap] of (progressFixture as (Job['progress'] & { state: string })[]).entries()) {
      const next = addSample(samples, last, snap.extra, i)
      samples = next.samples
      last = next.lastExtra
      if (snap.description && descriptions.at(-1) !== snap.description) descriptions.push(snap.description)
    }
    expect(descriptions.slice(0, 4)).toEqual(['bond1: iperf3 read, 1 flow(s)', 'bond1: iperf3 write, 1 flow(s)',
      'bond1: iperf3 read, 4 flow(s)', 'bond1: iperf3 write, 4 flow(s)'])
    const live = liveTests(samples)
    expect(live.map((t) => t.label)).toEqual(['read, 1 flow', 'write, 1 flow', 'read, 4 flows', 'write, 4 flows'])
    for (const t of live) expect(t.rate).toMatch(/^9[34]\d\.\d Mb\/s$/)
  })

  it('ignores samples of other jobs and keeps the latest of a repeated test', () => {
    expect(liveTests([
      { t: 0, phase: 'network desk', bytesPerS: 1 },
      { t: 1, phase: 'lagg read 1 flow(s)', bytesPerS: 100e6 / 8 },
      { t: 2, phase: 'lagg read 1 flow(s)', bytesPerS: 200e6 / 8 },
    ])).toEqual([{ label: 'read, 1 flow', rate: '200.0 Mb/s' }])
  })
})
