/**
 * Types for ua-parser-js 1.x (MIT; 2.x is AGPL, so the project stays on 1.x): the part of its
 * API core/enrich/device.ts calls. The package ships no types of its own in 1.x.
 */
declare module 'ua-parser-js' {
  interface UAParserInstance {
    getBrowser(): { name?: string; version?: string; major?: string };
    getOS(): { name?: string; version?: string };
    getDevice(): { vendor?: string; model?: string; type?: string };
  }
  const UAParser: new (ua?: string) => UAParserInstance;
  export default UAParser;
}
