/**
 * The drivers by destination type: the three platforms from the linkage layer, and the
 * webhook. A type without a driver is reported as a clear rejection by `forward`.
 */
import type { Destination } from '../../schemas/settings.ts';
import type { Driver } from './driver.ts';
import { ga4MpDriver } from './ga4/driver.ts';
import { metaCapiDriver } from './meta/driver.ts';
import { tiktokEventsDriver } from './tiktok/driver.ts';
import { webhookDriver } from './webhook/driver.ts';

const DRIVERS: Readonly<Record<Destination['type'], Driver>> = Object.freeze({
  meta_capi: metaCapiDriver,
  ga4_mp: ga4MpDriver,
  tiktok_events: tiktokEventsDriver,
  webhook: webhookDriver,
});

/** The driver of a destination type, or undefined when none is built in. */
export function driverFor(type: Destination['type']): Driver | undefined {
  return DRIVERS[type];
}
