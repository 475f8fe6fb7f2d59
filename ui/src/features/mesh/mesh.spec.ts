import { describe, expect, it } from 'vitest'
import plan from '../../fixtures/mesh-plan-lab.json'
import type { MeshPlan } from '../../api/types'
import { VIEW, diagramShapes } from './meshDiagram'
import { LAB_DRAFT, SEED_DRAFT, draftToRequest, parsePortLine } from './meshDraft'

// A real plan from tengig.mesh.plan_mesh for the lab's three hosts (/24 per link).
const lab = plan as unknown as MeshPlan

describe('diagramShapes', () => {
  const { nodes, edges } = diagramShapes(lab)

  it('places every host inside the drawing', () => {
    expect(nodes.map((n) => n.id)).toEqual(['desk', 'lab', 'nas'])
    for (const n of nodes) {
      expect(n.x).toBeGreaterThan(0)
      expect(n.x).toBeLessThan(VIEW.width)
      expect(n.y).toBeGreaterThan(0)
      expect(n.y).toBeLessThan(VIEW.height)
    }
  })

  it('draws one line per cable with its id, speed and subnet, and both ports with their addresses', () => {
    const c02 = edges.find((e) => e.id === 'C02')!
    const desk = nodes.find((n) => n.id === 'desk')!
    const nas = nodes.find((n) => n.id === 'nas')!
    expect([c02.x1, c02.y1, c02.x2, c02.y2]).toEqual([desk.x, desk.y, nas.x, nas.y])
    expect(c02.label.text).toBe('1 Gb/s 10.250.1.0/24')
    expect(c02.cable.text).toBe('C02')
    expect(c02.speedClass).toBe('slow')
    expect([c02.sourcePort.text, c02.sourceAddress?.text]).toEqual(['eth-nas', '10.250.1.1/24'])
    expect([c02.targetPort.text, c02.targetAddress?.text]).toEqual(['eth-desk', '10.250.1.3/24'])
    expect(edges.map((e) => e.speedClass)).toEqual(['fast', 'slow', 'fast'])
  })

  it('puts a port label nearer its own host than the far one', () => {
    const e = edges[0]
    const dist = (x: number, y: number, px: number, py: number) => Math.hypot(x - px, y - py)
    expect(dist(e.sourcePort.x, e.sourcePort.y, e.x1, e.y1)).toBeLessThan(dist(e.sourcePort.x, e.sourcePort.y, e.x2, e.y2))
  })

  it('refuses an edge to a host the diagram does not have', () => {
    const broken = { ...lab, diagram: { nodes: lab.diagram.nodes.slice(1), edges: lab.diagram.edges } }
    expect(() => diagramShapes(broken)).toThrow(/joins unknown host desk/)
  })
})

describe('parsePortLine', () => {
  it('reads name, speed, card and peer; names may hold spaces', () => {
    expect(parsePortLine('enp3s0f0 10g card=X540 #1 peer=desk')).toEqual({ name: 'enp3s0f0', speed_bps: '10g', card: 'X540 #1', peer: 'desk' })
    expect(parsePortLine('Ethernet 2 2.5G')).toEqual({ name: 'Ethernet 2', speed_bps: '2.5g' })
  })

  it('explains a line without a speed', () => {
    expect(parsePortLine('enp3s0f0')).toMatch(/port name, then its speed/)
  })
})

describe('draftToRequest', () => {
  it('builds the request tengig.mesh.plan takes', () => {
    const out = draftToRequest(LAB_DRAFT)
    expect(out.ok).toBe(true)
    if (out.ok) {
      expect(out.request.hosts[0]).toEqual({ name: 'nas', kind: 'truenas-scale', ports: [
        { name: 'eth-desk', speed_bps: '1g', peer: 'desk' }, { name: 'eth-lab', speed_bps: '10g', peer: 'lab' }] })
      expect(out.request.options).toEqual({ prefix: 24, mtu: 1500, name_suffix: '' })
      expect(out.request.existing_networks).toEqual(['192.168.1.0/24'])
    }
    expect(draftToRequest(SEED_DRAFT).ok).toBe(true)
  })

  it('names the host and port line that cannot be read', () => {
    const out = draftToRequest({ ...LAB_DRAFT, hosts: [{ name: 'a', kind: 'linux', ports: 'eth0 10g\neth1' }], mtu: 'big' })
    expect(out.ok).toBe(false)
    if (!out.ok) expect(out.errors.map(([f]) => f)).toEqual(['hosts.0.ports.1', 'options.mtu'])
  })
})
