/** CronJob schedules as robfig/cron (v3) parses them, and the time-zone names kube accepts. */
export { isTimeZone, parseCronSchedule, type CronSchedule } from './schedule.js';
