/**
 * Loopback receivers of the ad platforms, for the local receiver (`npm start`) and the
 * end-to-end tests: each `start…Receiver()` resolves to `{ url, received, failNext, close }`.
 */
export {
  type CapturedRequest,
  type CaptureReceiver,
  splitCapturedPath,
  startCaptureReceiver,
} from './capture.ts';
export { startGa4Receiver, type ValidationMessage } from './ga4.ts';
export {
  type GoogleAdsReceiver,
  googleError,
  standInCredentials,
  startGoogleAdsReceiver,
} from './google-ads.ts';
export { startLinkedInReceiver } from './linkedin.ts';
export { startMetaReceiver } from './meta.ts';
export { startMicrosoftReceiver } from './microsoft.ts';
export { pinterestError, startPinterestReceiver } from './pinterest.ts';
export { startRedditReceiver } from './reddit.ts';
export {
  type Answer,
  type PlatformReceiver,
  type ReceivedRequest,
  type ReceiverOptions,
  SCRIPT_PATH,
} from './server.ts';
export { snapError, startSnapchatReceiver } from './snapchat.ts';
export { startTikTokReceiver } from './tiktok.ts';
export { startXReceiver, type XReceiverOptions, xError } from './x.ts';
