// olsdk lineage page, served live: the server that serves this page sends new page data
// as Server-Sent Events named "graph" (docs/how-to/graph.md, "Feeding the page live"); each one
// replaces the graph through olsdkLineage.update, keeping what the user is doing.
(function (url) {
  "use strict";
  const api = window.olsdkLineage;
  const chip = document.getElementById("live");
  const show = (state, text) => {
    chip.hidden = false;
    chip.dataset.state = state;
    chip.textContent = text;
  };
  const source = new EventSource(url);
  show("connecting", "live: connecting\u2026");
  source.addEventListener("open", () => show("open", "\u25cf live"));
  source.addEventListener("graph", (event) => {
    let data;
    try {
      data = JSON.parse(event.data);
    } catch (error) {
      show("error", "live: unreadable update");
      console.error("olsdk live: an update that is not JSON", error);
      return;
    }
    api.update(data);
    show("open", `\u25cf live \u00b7 ${new Date().toLocaleTimeString()}`);
  });
  source.addEventListener("error", () => {
    // EventSource reconnects by itself (the server sends the whole graph again on connect)
    show("retrying", source.readyState === EventSource.CLOSED ? "live: disconnected" : "live: reconnecting\u2026");
  });
  api.live = source;
})(@@URL@@);
