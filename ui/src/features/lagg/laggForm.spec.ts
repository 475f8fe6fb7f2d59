import { describe, expect, it } from 'vitest'
import nicsFixture from '../../fixtures/lagg-nics.json'
import validation from '../../fixtures/lagg-validate-scale.json'
import type { LaggValidation, Nic } from '../../api/types'
import { EMPTY_DRAFT, applySteps, candidateNics, draftToRequest, nicSummary, planHeadline, throughputRows } from './laggForm'

// Five ports (an onboard 1G carrying the session, two dual-port 10G cards, one port without link) and
// what tengig.lagg.plan_lagg + render gave for them on TrueNAS SCALE behind an LACP switch, 4 clients.
const nics = nicsFixture as Nic[]
const { plan, rendered } = validation as unknown as LaggValidation

describe('draftToRequest', () => {
  it('builds the request with pinned members', () => {
    const out = draftToRequest({ ...EMPTY_DRAFT, pinned: ['enp3s0f0', 'enp3s0f1'] }, nics)
    expect(out.ok && out.request.options).toEqual({ mtu: 1500, members: ['enp3s0f0', 'enp3s0f1'], confirm_session_interface: false,
      clear_member_config: false })
    expect(out.ok && out.request.client_count).toBe(4)
  })

  it('asks the plan to clear members that have addresses of their own when told to', () => {
    const out = draftToRequest({ ...EMPTY_DRAFT, clearMemberConfig: true }, nics)
    expect(out.ok && out.request.options?.clear_member_config).toBe(true)
  })

  it('lets the planner pick when nothing is pinned', () => {
    const out = draftToRequest(EMPTY_DRAFT, nics)
    expect(out.ok && out.request.options?.members).toBeNull()
  })

  it('names the field of every mistake', () => {
    const out = draftToRequest({ ...EMPTY_DRAFT, clientCount: 'many', mtu: '9k', pinned: ['eth9'] }, [])
    expect(out.ok ? [] : out.errors.map(([f]) => f)).toEqual(['nics', 'client_count', 'options.mtu', 'options.members'])
  })
})

describe('inventory', () => {
  it('offers physical ports and says what matters about each', () => {
    expect(candidateNics(nics).map((n) => n.name)).toEqual(['eno1', 'enp3s0f0', 'enp3s0f1', 'enp4s0f0', 'enp4s0f1'])
    expect(nicSummary(nics[0])).toBe('link up · 1 Gb/s · MTU 1500 · card 0000:00:19 · 192.168.1.10/24 · carries this session')
    expect(nicSummary(nics[4])).toMatch(/^link down · no speed/)
  })
})

describe('plan views', () => {
  it('heads the plan with protocol, members and hash', () => {
    expect(planHeadline(plan)).toBe('bond0: LACP over enp3s0f0, enp4s0f0, hash LAYER3+4, LACPDU FAST, MTU 1500')
  })

  it('tables 1 flow and N flows per direction with the reasons', () => {
    const rows = throughputRows(plan.throughput)
    expect(rows.map((r) => [r.direction, r.flows, r.expected, r.worst, r.multiple])).toEqual([
      ['read (NAS sends)', 1, '9.41 Gb/s', '9.41 Gb/s', '×1.0'],
      ['read (NAS sends)', 4, '17.65 Gb/s', '9.41 Gb/s', '×1.9'],
      ['write (NAS receives)', 1, '9.41 Gb/s', '9.41 Gb/s', '×1.0'],
      ['write (NAS receives)', 4, '17.65 Gb/s', '9.41 Gb/s', '×1.9'],
    ])
    expect(rows[1].reason).toMatch(/hashes each of 4 flows onto one of 2 members/)
  })

  it('lists what apply would run and how to undo it', () => {
    const steps = applySteps(rendered)
    expect(steps.run[0]).toMatch(/^interface\.create \[\{"type":"LINK_AGGREGATION","name":"bond0"/)
    expect(steps.run.some((l) => l.startsWith('interface.commit'))).toBe(true)
    expect(steps.run.at(-1)).toMatch(/^interface\.checkin/)
    expect(steps.undo.length).toBeGreaterThan(0)
  })

  it('quotes argv words that a shell would split', () => {
    const steps = applySteps({ ...rendered, api_calls: [], commit: null, checkin: null, undo_calls: [],
      commands: [['ip', 'link', 'add', 'bond0', 'type', 'bond', 'mode', '802.3ad']], undo: [['ip', 'link', 'set', 'dev', 'Ethernet 2', 'up']] })
    expect(steps.run).toEqual(['ip link add bond0 type bond mode 802.3ad'])
    expect(steps.undo).toEqual(["ip link set dev 'Ethernet 2' up"])
  })
})
