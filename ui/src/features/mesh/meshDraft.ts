/**
 * The mesh planner form: hosts with one port per line ("enp3s0f0 10g card=X540 peer=desk"), options,
 * networks to avoid; to and from the MeshRequest tengig.mesh.plan takes. Pure.
 */
import type { HostKind, MeshPortRequest, MeshRequest } from '../../api/types'

export interface HostDraft {
  name: string
  kind: HostKind
  ports: string
}

export interface MeshDraft {
  hosts: HostDraft[]
  existingNetworks: string
  prefix: '24' | '30' | '31'
  mtu: string
  nameSuffix: string
}

export const HOST_KINDS: HostKind[] = ['truenas-scale', 'truenas-core', 'linux', 'freebsd', 'windows']

/** The lab's three hosts and cables (desk-nas at 1 Gb/s), addressed like the lab (/24, host N is .N). */
export const LAB_DRAFT: MeshDraft = {
  hosts: [
    { name: 'nas', kind: 'truenas-scale', ports: 'eth-desk 1g peer=desk\neth-lab 10g peer=lab' },
    { name: 'desk', kind: 'linux', ports: 'eth-nas 1g peer=nas\neth-lab 10g peer=lab' },
    { name: 'lab', kind: 'linux', ports: 'eth-nas 10g peer=nas\neth-desk 10g peer=desk' },
  ],
  existingNetworks: '192.168.1.0/24',
  prefix: '24',
  mtu: '1500',
  nameSuffix: '',
}

/** Seed 000's trio: a TrueNAS with a dual-port card, a Windows desktop and a Linux box, all 10G. */
export const SEED_DRAFT: MeshDraft = {
  hosts: [
    { name: 'nas', kind: 'truenas-scale', ports: 'enp3s0f0 10g card=S320E\nenp3s0f1 10g card=S320E' },
    { name: 'desk', kind: 'windows', ports: 'Ethernet 2 10g\nEthernet 3 10g' },
    { name: 'lab', kind: 'linux', ports: 'enp4s0f0 10g\nenp4s0f1 10g' },
  ],
  existingNetworks: '192.168.1.0/24',
  prefix: '30',
  mtu: '9000',
  nameSuffix: '',
}

const SPEED = /^\d+(\.\d+)?[mgMG]$|^\d+$/

/**
 * "enp3s0f0 10g card=X540 #1 peer=desk": the name may hold spaces (Windows' "Ethernet 2"), so the
 * speed is the last word before any key=value.
 */
export function parsePortLine(line: string): MeshPortRequest | string {
  const words = line.trim().split(/\s+/)
  const firstKey = words.findIndex((w) => /^(card|peer)=/.test(w))
  const head = firstKey < 0 ? words : words.slice(0, firstKey)
  const tail = firstKey < 0 ? [] : words.slice(firstKey)
  if (head.length < 2 || !SPEED.test(head[head.length - 1])) {
    return `"${line.trim()}": write the port name, then its speed (10g, 2.5g, 1g), e.g. "enp3s0f0 10g"`
  }
  const port: MeshPortRequest = { name: head.slice(0, -1).join(' '), speed_bps: head[head.length - 1].toLowerCase() }
  let key: 'card' | 'peer' | null = null
  const values: Record<string, string[]> = { card: [], peer: [] }
  for (const w of tail) {
    const m = /^(card|peer)=(.*)$/.exec(w)
    if (m) {
      key = m[1] as 'card' | 'peer'
      values[key].push(m[2])
    } else if (key) values[key].push(w)
  }
  if (values.card.length) port.card = values.card.join(' ')
  if (values.peer.length) port.peer = values.peer.join(' ')
  return port
}

export function draftToRequest(draft: MeshDraft): { ok: true; request: MeshRequest } | { ok: false; errors: [string, string][] } {
  const errors: [string, string][] = []
  const hosts = draft.hosts.map((h, i) => {
    const ports: MeshPortRequest[] = []
    h.ports.split('\n').filter((l) => l.trim()).forEach((line, k) => {
      const parsed = parsePortLine(line)
      if (typeof parsed === 'string') errors.push([`hosts.${i}.ports.${k}`, parsed])
      else ports.push(parsed)
    })
    return { name: h.name.trim(), kind: h.kind, ports }
  })
  const mtu = Number(draft.mtu)
  if (!Number.isInteger(mtu)) errors.push(['options.mtu', `${JSON.stringify(draft.mtu)} is not a whole number of bytes`])
  if (errors.length) return { ok: false, errors }
  return {
    ok: true,
    request: {
      hosts,
      existing_networks: draft.existingNetworks.split(/[\s,]+/).filter(Boolean),
      options: { prefix: Number(draft.prefix) as 24 | 30 | 31, mtu, name_suffix: draft.nameSuffix.trim() },
    },
  }
}
