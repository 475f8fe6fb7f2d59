import { describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import App from './App.vue'

describe('App', () => {
  it('shows the title and asks for an API key before anything else', () => {
    const wrapper = mount(App)
    expect(wrapper.get('[data-test="app-title"]').text()).toBe('tengig')
    expect(wrapper.get('[data-test="app-description"]').text()).toBe('Does your NAS over SMB beat a local disk?')
    expect(wrapper.find('[data-test="login"]').exists()).toBe(true)
    expect(wrapper.find('[data-test="tabs"]').exists()).toBe(false)
  })
})
