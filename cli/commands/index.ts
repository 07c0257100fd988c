/**
 * The CLI's command modules. Each exports `register(program: Command): void`.
 * To add a command, add ONE line here: `export * as <name> from './<name>.ts';`
 * (main.ts registers every module this file exports, in alphabetical order).
 */

export * as alert from './alert.ts';
export * as connect from './connect.ts';
export * as destinations from './destinations.ts';
export * as enrich from './enrich.ts';
export * as erase from './erase.ts';
export * as exportPerson from './export-person.ts';
export * as geo from './geo.ts';
export * as key from './key.ts';
export * as local from './local.ts';
export * as preview from './preview.ts';
export * as reconcile from './reconcile.ts';
export * as replay from './replay.ts';
export * as resources from './resources.ts';
export * as rule from './rule.ts';
export * as settings from './settings.ts';
export * as source from './source.ts';
export * as sql from './sql.ts';
export * as start from './start.ts';
export * as sync from './sync.ts';
export * as token from './token.ts';
