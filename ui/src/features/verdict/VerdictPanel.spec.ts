import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import single from '../../fixtures/run-lab-desk-1g.json'
import joinedReport from '../../fixtures/run-joined-desk-lab.json'
import scalingRun from '../../fixtures/run-pool-scaling-lab.json'
import type { BenchReport, RunEntry } from '../../api/types'
import VerdictPanel from './VerdictPanel.vue'
import { ApiError } from '../../api/errors'
import { useErrors } from '../../composables/useErrors'

const report = joinedReport as unknown as BenchReport
const one = single as unknown as RunEntry
const joined: RunEntry = {
  ...one, id: 7, kind: 'smb', results: joinedReport as unknown as Record<string, unknown>,
  verdict: report.clients[0].verdict ?? null,
}

const server = {
  runs: {} as Record<number, RunEntry>, result: async (id: number) => server.runs[id], results: async () => [],
  exported: [] as [number, string][],
  exportRun: async (id: number, format: string) => {
    server.exported.push([id, format])
    if (server.refuse) throw new ApiError('tengig.results.export', 22, server.refuse)
    return `# tengig run ${id}\n`
  },
  refuse: '',
}
vi.mock('../../composables/useSession', () => ({ currentApi: () => server, useSession: () => ({ url: 'ws://127.0.0.1:8610/api/current' }) }))
const copied: string[] = []
vi.mock('../../composables/copyText', () => ({ copyText: async (text: string) => (copied.push(text), true) }))
const saved: [string, string, string][] = []
vi.mock('../../composables/downloadText', () => ({ downloadText: (...a: [string, string, string]) => saved.push(a) }))

async function show(run: RunEntry) {
  server.runs = { [run.id]: run }
  const w = mount(VerdictPanel, { props: { runId: run.id } })
  await flushPromises()
  return w
}

describe('VerdictPanel', () => {
  beforeEach(() => {
    server.runs = {}
  })

  it('shows what the desktop\'s SMB client used of its CPU beside the verdict that names it', async () => {
    const base = one.results as Record<string, unknown>
    const cpu = { cores: 0.0987, cpus: 0.1, cpu_seconds: [0.5], wall_seconds: [5.07] }
    const smb = { read: { client_cpu: cpu }, write: { client_cpu: { ...cpu, cores: 0.0912 } } }
    const w = await show({ ...one, id: 12, results: { ...base, clients: [{ client: 'desk', verdict: one.verdict, smb }] } })
    const line = w.get('[data-test="client-cpu"]')
    expect(line.attributes('data-client')).toBe('desk')
    expect(line.text()).toBe("desk's SMB client used 0.10 of a core reading, 0.09 writing (it may use 0.1: its CPUs or its cgroup's limit)")
    const plain = await show({ ...one, id: 13 })
    expect(plain.find('[data-test="client-cpu"]').exists()).toBe(false)
  })

  it('shows each desktop\'s own disk verdict beside the run\'s, or why it was not measured', async () => {
    const verdict = one.verdict!
    const ownDisk = { ...verdict, summary: "Against desk's own disk (/home/ana), measured here: 512.3 MB/s read",
      target: { ...verdict.target, name: 'own-disk-desk', title: "desk's own disk (/home/ana), measured here" } }
    const base = one.results as Record<string, unknown>
    const w = await show({ ...one, id: 9, results: { ...base, clients: [{ client: 'desk', verdict, own_disk_verdict: ownDisk }] } })
    const [block] = w.findAll('[data-test="own-disk-verdict"]')
    expect(block.attributes('data-client')).toBe('desk')
    expect(block.get('[data-test="own-disk-summary"]').text()).toBe(ownDisk.summary)
    expect(w.get('[data-test="verdict-summary"]').text()).toBe(verdict.summary)  // the run's target, still first
    const none = await show({ ...one, id: 10, results: { ...base, clients: [{ client: 'desk', verdict, own_disk_note: 'not measured: x' }] } })
    expect(none.get('[data-test="own-disk-note"]').text()).toBe('not measured: x')
    const plain = await show({ ...one, id: 11 })
    expect(plain.find('[data-test="own-disk-verdict"]').exists()).toBe(false)
  })

  it('shows the small-file chart per desktop: the verdict\'s line and files/s per size beside the own disk', async () => {
    const verdict = { ...one.verdict!, small_files: 'copying 4 KiB files: 310 files/s (1.27 MB/s) vs 9,800 files/s on your own disk' }
    const rate = (op: string, fps: number) => ({ op, files: 200, bytes: 819200, seconds: 200 / fps, files_per_s: fps,
      bytes_per_s: fps * 4096, per_file: { count: 200, p50_ms: 0.8, p95_ms: 1.9, p99_ms: 2.4 } })
    const small_files = { client: 'desk', server: 'nas', round_trip_ms: 0.8, sizes: [{ size: 4096, count: 200,
      engine: 'smbclient', nas_files: 200, nas_bytes: 819200, nas_files_left: 0, ops: [rate('write', 310)],
      own_disk: [rate('write', 9800)] }] }
    const base = one.results as Record<string, unknown>
    const w = await show({ ...one, id: 12, results: { ...base, clients: [{ client: 'desk', verdict, small_files }] } })
    const chart = w.get('[data-test="small-files"]')
    expect(chart.attributes('data-client')).toBe('desk')
    expect(chart.get('[data-test="small-files-line"]').text()).toBe(verdict.small_files)
    const values = chart.findAll('[data-test="small-files-value"]').map((v) => v.text())
    expect(values[0]).toContain('310 files/s (1.3 MB/s)')
    expect(values[1]).toContain('9,800 files/s (40.1 MB/s)')
    const plain = await show({ ...one, id: 13 })
    expect(plain.find('[data-test="small-files"]').exists()).toBe(false)
  })

  it('shows SMB multichannel per client: on or off as the NAS read it, and the channels its session used', async () => {
    const verdict = one.verdict!
    const base = one.results as Record<string, unknown>
    const smb = { multichannel: { enabled: false, read_from: 'testparm /etc/samba/smb.conf', channels: null } }
    const w = await show({ ...one, id: 12, results: { ...base, clients: [{ client: 'desk', verdict, smb }] } })
    const row = w.get('[data-test="multichannel-desk"]')
    expect(row.text()).toContain('off (testparm /etc/samba/smb.conf)')
    expect(row.text()).toContain('not listed by this Samba (before 4.18)')
    const plain = await show({ ...one, id: 13, results: { ...base, clients: [{ client: 'desk', verdict }] } })
    expect(plain.find('[data-test="multichannel"]').exists()).toBe(false)
  })

  it('shows a multi-client run\'s aggregate first, then each client\'s own verdict under its name', async () => {
    const w = await show(joined)
    const agg = w.get('[data-test="aggregate-verdict"]')
    expect(agg.get('h3').text()).toBe('All clients at once')
    expect(agg.get('[data-test="aggregate-summary"]').text()).toBe(report.aggregate_verdict!.summary)
    expect(agg.get('[data-test="aggregate-clients"]').text()).toMatch(/^2 clients at once \(desk, lab\)/)
    expect(agg.get('[data-test="aggregate-row-read"]').text()).toMatch(/195\.8 MB\/s.*223\.4 MB\/s.*loses by 12\.3%.*Link/)
    expect(agg.get('[data-test="ceiling-read-link"]').text()).toMatch(/235\.4 MB\/s/)
    const blocks = w.findAll('[data-test="client-verdict"]')
    expect(blocks.map((b) => b.attributes('data-client'))).toEqual(['desk', 'lab'])
    for (const b of blocks) {
      const name = b.attributes('data-client')!
      const own = report.clients.find((c) => c.client === name)!.verdict!
      expect(b.get('[data-test="client-verdict-name"]').text()).toBe(name)
      expect(b.get('[data-test="client-verdict-summary"]').text()).toBe(own.summary)
    }
    expect(w.html().indexOf('data-test="aggregate-verdict"')).toBeLessThan(w.html().indexOf('data-test="client-verdict"'))
    expect(w.find('[data-test="verdict-summary"]').exists()).toBe(false)
  })

  it('shows a one-client run as before: the hooks the browser tests read, no aggregate', async () => {
    const w = await show(one)
    expect(w.get('[data-test="verdict-summary"]').text()).toBe(one.verdict!.summary)
    expect(w.get('[data-test="verdict-row-read"]').text()).toMatch(/115\.5 MB\/s/)
    expect(w.find('[data-test="verdict-table"]').exists()).toBe(true)
    expect(w.find('[data-test="verdict-target-source"]').exists()).toBe(true)
    expect(w.find('[data-test="advice"] [data-test="advice-link-below-target"]').exists()).toBe(true)
    expect(w.find('[data-test="ceiling-read-pool"]').exists()).toBe(true)
    expect(w.find('[data-test="aggregate-verdict"]').exists()).toBe(false)
    expect(w.find('[data-test="client-verdict"]').exists()).toBe(false)
  })

  it('shows a pool run\'s thread sweep and its disks, the throttled member named, with no verdict', async () => {
    // recorded on the lab: two members, loop1 throttled to 50 MB/s, the sweep alone (scaling 'only')
    const scaling = (scalingRun as unknown as { pool: { scaling: { dragging: string } } }).pool.scaling
    const w = await show({ ...one, id: 12, kind: 'pool', verdict: null, results: scalingRun as unknown as Record<string, unknown> })
    expect(w.get('[data-test="verdict-none"]').text()).toMatch(/no verdict/)
    const chart = w.get('[data-test="scaling"]')
    expect(chart.get('[data-test="scaling-read-1"]').text()).toMatch(/^1 thread\s*\d+\.\d MB\/s/)
    expect(chart.get('[data-test="scaling-read-2"]').text()).toMatch(/2 threads\s*\d+\.\d MB\/s\s*[+-]\d+\.\d%.*stop/)
    expect(chart.get('[data-test="scaling-read-stopped"]').text()).toMatch(/^2 threads: [+-]\d+\.\d% over 1: stopped; the verdict uses \d thread/)
    expect(chart.get('[data-test="scaling-dragging"]').text()).toBe(scaling.dragging)
    expect(chart.get('[data-test="member-loop1"]').text()).toMatch(/\d+\.\d ms\s*busy \d+%.*stands out/)
    expect(chart.get('[data-test="member-loop3"]').text()).not.toMatch(/stands out/)
    const plain = await show({ ...one, id: 13 })
    expect(plain.find('[data-test="scaling"]').exists()).toBe(false)
  })

  it('copies the run as Markdown from tengig.results.export, and saves it as tengig-run-ID.md', async () => {
    const w = await show(one)
    await w.get('[data-test="share-copy-md"]').trigger('click')
    await flushPromises()
    expect(copied.at(-1)).toBe(`# tengig run ${one.id}\n`)
    expect(w.get('[data-test="share-status"]').text()).toBe('copied as Markdown')
    await w.get('[data-test="share-download-md"]').trigger('click')
    await flushPromises()
    expect(saved.at(-1)).toEqual([`tengig-run-${one.id}.md`, `# tengig run ${one.id}\n`, 'text/markdown'])
    expect(server.exported).toEqual([[one.id, 'md'], [one.id, 'md']])
  })

  it('says why when the server refuses the export, and copies nothing', async () => {
    server.refuse = "format: 'md' is not one of json, csv"
    const before = copied.length
    const w = await show(one)
    await w.get('[data-test="share-copy-md"]').trigger('click')
    await flushPromises()
    server.refuse = ''
    expect(copied.length).toBe(before)
    expect(w.get('[data-test="share-status"]').text()).toBe('')
    expect(useErrors().errors.map((e) => e.text).join(' ')).toMatch(/'md' is not one of json, csv/)
  })
})
