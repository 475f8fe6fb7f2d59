import { describe, expect, it } from 'vitest'
import type { LiveSample } from '../../lib/liveSamples'
import { benchSteps, liveChartData, stepProgress } from './benchProgress'

describe('benchSteps', () => {
  it('mirrors the suite: pool, then network and SMB per client, then all clients at once', () => {
    expect(benchSteps('all', ['desk']).map((s) => s.key)).toEqual(['pool', 'net:desk', 'smb:desk'])
    expect(benchSteps('all', ['desk', 'lab']).map((s) => s.key)).toEqual(
      ['pool', 'net:desk', 'smb:desk', 'net:lab', 'smb:lab', 'smb-concurrent'])
    expect(benchSteps('net', []).map((s) => s.label)).toEqual(['Network first client (iperf3)'])
  })

  it('has no all-at-once step for desktops that joined (suite_joined.py measures them one by one)', () => {
    expect(benchSteps('all', ['desk', 'mac'], { concurrent: false }).map((s) => s.key)).toEqual(
      ['pool', 'net:desk', 'smb:desk', 'net:mac', 'smb:mac'])
  })

  it('has each desktop\'s small files after its SMB: on their own, or in all with the full preset', () => {
    expect(benchSteps('smallfiles', ['desk'], { concurrent: false }).map((s) => s.key)).toEqual(['smallfiles:desk'])
    expect(benchSteps('all', ['desk'], { concurrent: false, small: true }).map((s) => s.key)).toEqual(
      ['pool', 'net:desk', 'smb:desk', 'smallfiles:desk'])
  })
})

describe('stepProgress', () => {
  const steps = benchSteps('all', ['desk'])
  it('splits the overall percent into the running step and the done ones', () => {
    const view = stepProgress(steps, { state: 'RUNNING', progress: { percent: 50, description: 'iperf3', extra: null } })
    expect(view.map((s) => [s.key, s.state, s.percent])).toEqual([
      ['pool', 'done', 100], ['net:desk', 'running', 50], ['smb:desk', 'pending', 0]])
  })

  it('marks the step that was running when the job failed', () => {
    const view = stepProgress(steps, { state: 'FAILED', progress: { percent: 70, description: 'smb', extra: null } })
    expect(view.map((s) => s.state)).toEqual(['done', 'done', 'failed'])
  })

  it('is all done on success and all pending before the job exists', () => {
    expect(stepProgress(steps, { state: 'SUCCESS', progress: { percent: 100, description: 'verdict', extra: null } })
      .every((s) => s.state === 'done' && s.percent === 100)).toBe(true)
    expect(stepProgress(steps, null).every((s) => s.state === 'pending')).toBe(true)
  })
})

describe('liveChartData', () => {
  it('aligns pool, network and SMB in MB/s with nulls where a series has no point', () => {
    const samples: LiveSample[] = [
      { t: 12.34, phase: 'network desk-nas read 1 stream(s)', bytesPerS: 116e6 },
      { t: 3, phase: 'pool SEQ1M_Q8T1 write', bytesPerS: 470e6 },
      { t: 30, phase: 'smb write desk', bytesPerS: 114.9e6 },
      { t: 31, phase: 'something else', bytesPerS: 1 },
    ]
    expect(liveChartData(samples)).toEqual([
      [3, 12.3, 30],
      [470, null, null],
      [null, 116, null],
      [null, null, 114.9],
    ])
  })
})
