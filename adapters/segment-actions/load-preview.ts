/**
 * The Segment actions dry run (preview.ts), loaded on its first call: actions-core and the
 * destination's module stay out of a process until a `segment_action` destination is previewed.
 * The studio's catalogue preview and debugger and `eventbus preview` call this, and hand it to
 * core/delivery/preview.ts, which loads no module itself.
 */
import type { ActionsPreview } from '../../core/delivery/preview.ts';

export const previewActions: ActionsPreview = async (event, destination, now) => {
  const { previewSegmentAction } = await import('./preview.ts');
  return previewSegmentAction(event, destination, now);
};
