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
  it('round-trips', () => {
    expect(routeHash(parseRoute('#/verdict/7'))).toBe('#/verdict/7')
    expect(routeHash({ view: 'run', runId: null })).toBe('#/run')
  })
})
