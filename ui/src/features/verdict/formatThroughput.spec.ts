import { describe, expect, it } from 'vitest'
import { formatGbps, formatMBps, formatMiBps } from './formatThroughput'

describe('formatMBps', () => {
  it('uses 10^6 bytes per MB', () => {
    expect(formatMBps(223_400_000)).toBe('223.4 MB/s')
    expect(formatMBps(1_000_000)).toBe('1.0 MB/s')
  })

  it('shows a real zero as zero', () => {
    expect(formatMBps(0)).toBe('0.0 MB/s')
  })
})

describe('formatMiBps', () => {
  it('uses 2^20 bytes per MiB', () => {
    expect(formatMiBps(2 ** 20)).toBe('1.0 MiB/s')
    expect(formatMiBps(224 * 2 ** 20)).toBe('224.0 MiB/s')
  })

  it('gives a different number than MB/s for the same rate', () => {
    expect(formatMiBps(100 * 2 ** 20)).toBe('100.0 MiB/s')
    expect(formatMBps(100 * 2 ** 20)).toBe('104.9 MB/s')
  })
})

describe('formatGbps', () => {
  it('uses 10^9 bits per Gb', () => {
    expect(formatGbps(9_420_000_000)).toBe('9.42 Gb/s')
    expect(formatGbps(1e9)).toBe('1.00 Gb/s')
  })
})

describe('invalid rates', () => {
  const formatters = [formatMBps, formatMiBps, formatGbps]
  const invalid = [Number.NaN, -1, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]

  for (const format of formatters) {
    for (const value of invalid) {
      it(`${format.name} rejects ${String(value)}`, () => {
        expect(() => format(value)).toThrow(/Cannot format throughput/)
      })
    }
  }
})
