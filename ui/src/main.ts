import { createApp } from 'vue'
import App from './App.vue'
import { startTheme } from './composables/useTheme'
import './style.css'

startTheme()
createApp(App).mount('#app')
