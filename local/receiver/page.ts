/**
 * The receiver's page: one section per destination, newest first, refreshed every second
 * from /received.json. Plain HTML and a few lines of script: nothing to build or download.
 */
export const RECEIVER_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>eventbus · local receiver</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 2rem; color: #222; }
  h1 { font-size: 1.3rem; } h2 { font-size: 1.05rem; margin-top: 2rem; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid #ddd; vertical-align: top; }
  td.ok { color: #17702f; } td.bad { color: #b3261e; }
  pre { margin: 0; max-height: 8rem; overflow: auto; font-size: 12px; }
  .empty { color: #777; font-style: italic; }
</style>
</head>
<body>
<h1>What each destination received</h1>
<p>Send an event to the gateway; it appears here within seconds (refreshed every second).
Status: <span id="status">loading…</span></p>
<div id="destinations"></div>
<script>
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]));
async function refresh() {
  try {
    const res = await fetch('/received.json', { cache: 'no-store' });
    const data = await res.json();
    const root = document.getElementById('destinations');
    root.innerHTML = data.destinations.map((d) => {
      const rows = data.received.filter((r) => r.destination === d);
      const body = rows.length === 0
        ? '<p class="empty">nothing yet</p>'
        : '<table><thead><tr><th>time</th><th>event</th><th>event_id</th><th>signature</th><th>answer</th><th>body</th></tr></thead><tbody>' +
          rows.map((r) => '<tr data-event-id="' + esc(r.eventId || '') + '">' +
            '<td>' + esc(r.at) + '</td><td>' + esc(r.eventName || '') + '</td><td>' + esc(r.eventId || '') + '</td>' +
            '<td class="' + (r.verified === false ? 'bad' : 'ok') + '">' + (r.verified === null ? 'unsigned' : r.verified ? 'verified' : 'refused: ' + esc(r.note || '')) + '</td>' +
            '<td>' + esc(r.status) + '</td><td><pre>' + esc(JSON.stringify(r.body, null, 2)) + '</pre></td></tr>').join('') +
          '</tbody></table>';
      return '<section data-destination="' + esc(d) + '"><h2>' + esc(d) + ' (' + rows.length + ')</h2>' + body + '</section>';
    }).join('');
    document.getElementById('status').textContent = 'updated ' + new Date().toLocaleTimeString();
  } catch (err) {
    document.getElementById('status').textContent = 'receiver unreachable: ' + err.message;
  }
}
refresh();
setInterval(refresh, 1000);
</script>
</body>
</html>
`;
