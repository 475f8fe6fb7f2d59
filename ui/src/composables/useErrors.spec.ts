import { beforeEach, describe, expect, it } from 'vitest'
import { ApiError } from '../api/errors'
import { clearErrors, dismissError, reportError, useErrors } from './useErrors'

describe('useErrors', () => {
  beforeEach(() => clearErrors())

  it('shows the same error once, in words', () => {
    const err = new ApiError('tengig.results.query', -32001, 'x', { errname: 'ENOENT', reason: 'no run 9' })
    reportError(err, 'history')
    reportError(err, 'history')
    const { errors } = useErrors()
    expect(errors.map((e) => e.text)).toEqual(['tengig.results.query failed [ENOENT]: no run 9'])
    dismissError(errors[0].id)
    expect(useErrors().errors).toHaveLength(0)
  })

  it('clears one view’s errors and keeps the others', () => {
    reportError(new Error('a'), 'run')
    reportError(new Error('b'), 'mesh')
    clearErrors('run')
    expect(useErrors().errors.map((e) => e.context)).toEqual(['mesh'])
  })
})
