import { describe, expect, it } from 'vitest'
import {
  formatBitRate, formatBytes, formatGbps, formatLinkSpeed, formatMBps, formatMiBps, formatPercent, formatWhen,
} from './format'

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

describe('formatBitRate', () => {
  it('shows bits per second in Mb/s under 1 Gb/s and in Gb/s from there', () => {
    expect(formatBitRate(941_414_734)).toBe('941.4 Mb/s')
    expect(formatBitRate(94_100_000)).toBe('94.1 Mb/s')
    expect(formatBitRate(1_765_279_583)).toBe('1.77 Gb/s')
    expect(formatBitRate(1e9)).toBe('1.00 Gb/s')
  })
})

describe('formatLinkSpeed', () => {
  it("writes a port's nominal speed as exactly as it is reported, in Gb/s from 1 Gb/s", () => {
    expect([1e9, 2.5e9, 10e9, 100e6].map(formatLinkSpeed)).toEqual(['1 Gb/s', '2.5 Gb/s', '10 Gb/s', '100 Mb/s'])
  })
})

describe('formatBytes', () => {
  it('shows bytes with a decimal unit', () => {
    expect([336, 12_345, 354_789_913, 1_234_000_000].map(formatBytes)).toEqual(['336 B', '12.3 kB', '354.8 MB', '1.23 GB'])
  })

  it('refuses a byte count that is not one', () => {
    expect(() => formatBytes(-1)).toThrow(/Cannot show -1 bytes/)
  })
})

describe('formatPercent', () => {
  it('writes a percent with its digits, a gain signed when asked', () => {
    expect(formatPercent(12.345)).toBe('12.3%')
    expect(formatPercent(-3, { signed: true })).toBe('-3.0%')
    expect(formatPercent(3, { signed: true })).toBe('+3.0%')
    expect(formatPercent(0, { signed: true })).toBe('0.0%')
  })
})

describe('formatWhen', () => {
  it("writes a time as date and minute in the viewer's zone", () => {
    const t = new Date(2026, 10, 21, 10, 57, 30).getTime() / 1000
    expect(formatWhen(t)).toBe('2026-11-21 10:57')
  })
})

describe('invalid rates', () => {
  const formatters = [formatMBps, formatMiBps, formatGbps, formatBitRate, formatLinkSpeed]
  const invalid = [Number.NaN, -1, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]

  for (const format of formatters) {
    for (const value of invalid) {
      it(`${format.name} rejects ${String(value)}`, () => {
        expect(() => format(value)).toThrow(/Cannot format throughput/)
      })
    }
  }
})
