/**
 * The drivers by destination type. Platform drivers come from the linkage layer; a type
 * without a driver yet is reported as a clear rejection by `forward`, never a crash.
 */
import type { Destination } from '../../../schemas/settings.ts';
import type { Driver } from './driver.ts';
import { webhookDriver } from './drivers/webhook.ts';

const DRIVERS: Partial<Record<Destination['type'], Driver>> = {
  webhook: webhookDriver,
};

/** The driver of a destination type, or undefined when none is built in. */
export function driverFor(type: Destination['type']): Driver | undefined {
  return DRIVERS[type];
}
