/**
 * The plan's diagram (MeshPlan.diagram: nodes on a 0..1 square, one edge per cable) as SVG geometry:
 * host boxes, cables, a port label near each end and the cable's speed and subnet at its middle.
 * Pure; the component only draws what this returns.
 */
import type { DiagramEdge, MeshPlan } from '../../api/types'

export const VIEW = { width: 820, height: 560, pad: 90 } as const

export interface NodeShape {
  id: string
  label: string
  kind: string
  x: number
  y: number
}

export interface TextAt {
  x: number
  y: number
  text: string
}

export interface EdgeShape {
  id: string
  /** The hosts at each end (diagram source and target). */
  source: string
  target: string
  x1: number
  y1: number
  x2: number
  y2: number
  speedClass: 'slow' | 'fast'
  label: TextAt
  cable: TextAt
  sourcePort: TextAt
  targetPort: TextAt
  /** Addresses at each end, from the plan's cables (shown under the port names). */
  sourceAddress: TextAt | null
  targetAddress: TextAt | null
}

const round = (v: number) => Math.round(v * 10) / 10

function place(n: { x: number; y: number }) {
  return {
    x: round(VIEW.pad + n.x * (VIEW.width - 2 * VIEW.pad)),
    y: round(VIEW.pad * 0.6 + n.y * (VIEW.height - 1.5 * VIEW.pad)),
  }
}

/** A point `t` of the way from (x1,y1) to (x2,y2), pushed `off` px to the left of the direction. */
function along(x1: number, y1: number, x2: number, y2: number, t: number, off: number) {
  const dx = x2 - x1
  const dy = y2 - y1
  const len = Math.hypot(dx, dy) || 1
  return { x: round(x1 + dx * t - (dy / len) * off), y: round(y1 + dy * t + (dx / len) * off) }
}

function addressOf(plan: MeshPlan, edge: DiagramEdge, host: string): string | null {
  const cable = plan.cables.find((c) => c.id === edge.id)
  if (!cable) return null
  const end = cable.a.host === host ? cable.a : cable.b.host === host ? cable.b : null
  return end ? `${end.address}/${cable.prefix}` : null
}

export function diagramShapes(plan: MeshPlan): { nodes: NodeShape[]; edges: EdgeShape[] } {
  const nodes = plan.diagram.nodes.map((n) => ({ id: n.id, label: n.label, kind: n.kind, ...place(n) }))
  const at = new Map(nodes.map((n) => [n.id, n]))
  const edges = plan.diagram.edges.map((e) => {
    const s = at.get(e.source)
    const t = at.get(e.target)
    if (!s || !t) throw new Error(`diagram edge ${e.id} joins unknown host ${!s ? e.source : e.target}`)
    const near = (from: NodeShape, to: NodeShape, off: number) => along(from.x, from.y, to.x, to.y, 0.24, off)
    const sourceAddress = addressOf(plan, e, e.source)
    const targetAddress = addressOf(plan, e, e.target)
    return {
      id: e.id,
      source: e.source,
      target: e.target,
      x1: s.x, y1: s.y, x2: t.x, y2: t.y,
      speedClass: e.speed_bps >= 10e9 ? 'fast' : 'slow',
      label: { ...along(s.x, s.y, t.x, t.y, 0.5, -12), text: e.label },
      cable: { ...along(s.x, s.y, t.x, t.y, 0.5, 16), text: e.id },
      sourcePort: { ...near(s, t, 12), text: e.source_port },
      targetPort: { ...near(t, s, -12), text: e.target_port },
      sourceAddress: sourceAddress ? { ...near(s, t, 26), text: sourceAddress } : null,
      targetAddress: targetAddress ? { ...near(t, s, -26), text: targetAddress } : null,
    } satisfies EdgeShape
  })
  return { nodes, edges }
}
