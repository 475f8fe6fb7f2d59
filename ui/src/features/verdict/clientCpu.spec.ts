import { describe, expect, it } from 'vitest'
import type { BenchReport } from '../../api/types'
import { clientCpus } from './clientCpu'

const cpu = (cores: number, cpus: number) => ({ cores, cpus, cpu_seconds: [cores * 2], wall_seconds: [2] })

function report(clients: unknown[]): BenchReport {
  return { clients } as unknown as BenchReport
}

describe('clientCpus', () => {
  it('says what each desktop\'s SMB client used of a core, each way, and what it may use', () => {
    const got = clientCpus(report([
      { client: 'desk', smb: { read: { client_cpu: cpu(0.0987, 0.1) }, write: { client_cpu: cpu(0.0912, 0.1) } } },
      { client: 'mac', smb: { read: { client_cpu: null }, write: { client_cpu: cpu(0.98, 8) } } },
      { client: 'old', smb: { read: {}, write: {} } },
      { client: 'none' },
    ]))
    expect(got).toEqual([
      { name: 'desk', text: "desk's SMB client used 0.10 of a core reading, 0.09 writing (it may use 0.1: its CPUs or its cgroup's limit)" },
      { name: 'mac', text: "mac's SMB client used 0.98 of a core writing (it may use 8: its CPUs or its cgroup's limit)" },
    ])
    expect(clientCpus(null)).toEqual([])
  })
})
