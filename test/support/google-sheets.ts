/**
 * Segment's google-sheets destination as the OAuth tests configure it (issue #78): its `postSheet`
 * action for purchases, one row per event (the event id as the row's id), the order id and total as
 * columns, credentials from the named `oauth2` connection.
 */
import type { Destination } from '../../schemas/settings.ts';

export function googleSheetsDestination(
  spreadsheet: string,
  connection: string,
  more: Partial<Destination> = {},
): Destination {
  return {
    id: 'sheets',
    type: 'segment_action',
    destination: 'google-sheets',
    connection,
    actions: [
      {
        action: 'postSheet',
        when: ['purchase'],
        mapping: {
          record_identifier: { '@path': '$.messageId' },
          operation_type: 'new',
          spreadsheet_id: spreadsheet,
          fields: { order: { '@path': '$.properties.order_id' }, total: { '@path': '$.properties.total' } },
        },
      },
    ],
    ...more,
  };
}
