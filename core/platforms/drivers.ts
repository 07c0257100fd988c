/**
 * The drivers by destination type, derived from the table of platforms (platforms.ts): each
 * platform's driver is built from its own parts (platform.ts). A type without a driver is
 * reported as a clear rejection by `forward`.
 */
import type { Destination } from '../../schemas/settings.ts';
import type { Driver } from './driver.ts';
import { everyPlatform } from './platforms.ts';

const DRIVERS: Readonly<Record<Destination['type'], Driver>> = everyPlatform((p) => p.driver);

/** The driver of a destination type, or undefined when none is built in. */
export function driverFor(type: Destination['type']): Driver | undefined {
  return DRIVERS[type];
}
