/** The event contract: context, catalogue and event types (barrel at the folder boundary). */
export * from './catalogue.ts';
export * from './context.ts';
export * from './events/commerce.ts';
export * from './events/common.ts';
export * from './events/engagement.ts';
export * from './events/page-view.ts';
export * from './events/search.ts';
export * from './events/view-content.ts';
