import { describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import App from './App.vue'

describe('App', () => {
  it('shows the title, the description and the verdict placeholder', () => {
    const wrapper = mount(App)

    expect(wrapper.get('[data-test="app-title"]').text()).toBe('tengig')
    expect(wrapper.get('[data-test="app-description"]').text()).toBe(
      'Does your NAS over SMB beat a local disk?',
    )
    expect(wrapper.get('[data-test="verdict-placeholder"]').text()).toContain(
      'arrives with the benchmark endpoints',
    )
  })
})
