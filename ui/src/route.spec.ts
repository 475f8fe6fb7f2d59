import { describe, expect, it } from 'vitest'
import { parseRoute, routeHash } from './route'

describe('parseRoute', () => {
  it('reads the view and a run id', () => {
    expect(parseRoute('#/verdict/12')).toEqual({ view: 'verdict', runId: 12 })
    expect(parseRoute('#/mesh')).toEqual({ view: 'mesh', runId: null })
  })
  it('falls back to the latest verdict for anything else', () => {
    expect(parseRoute('')).toEqual({ view: 'verdict', runId: null })
    expect(parseRoute('#/nope/3')).toEqual({ view: 'verdict', runId: null })
    expect(parseRoute('#/verdict/abc')).toEqual({ view: 'verdict', runId: null })
  })
  it('reads two runs History compares', () => {
    expect(parseRoute('#/history/7/8')).toEqual({ view: 'history', runId: null, pair: [7, 8] })
    expect(parseRoute('#/history/7')).toEqual({ view: 'history', runId: null })
    expect(parseRoute('#/history/7/7')).toEqual({ view: 'history', runId: null })
    expect(parseRoute('#/history/7/x')).toEqual({ view: 'history', runId: null })
    expect(routeHash(parseRoute('#/history/7/8'))).toBe('#/history/7/8')
  })
  it('round-trips', () => {
    expect(routeHash(parseRoute('#/verdict/7'))).toBe('#/verdict/7')
    expect(routeHash({ view: 'run', runId: null })).toBe('#/run')
  })
})
