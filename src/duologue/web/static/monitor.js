// Admin: the participant monitor, from /admin/api/monitor every few seconds, no reload.
(function () {
  "use strict";
  var EVERY_MS = 3000;
  var STAGE_WORDS = { protocol: "before the lobby", lobby: "lobby", dialogue: "in a dialogue", questionnaire: "questionnaire", done: "done" };
  var rows = document.getElementById("monitor-rows");
  var stamp = document.getElementById("monitor-updated");
  if (!rows) return;

  function cell(text, cls) {
    var td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    return td;
  }

  function duration(seconds) {
    if (seconds < 60) return seconds + " s";
    if (seconds < 3600) return Math.floor(seconds / 60) + " min " + (seconds % 60) + " s";
    return Math.floor(seconds / 3600) + " h " + Math.floor((seconds % 3600) / 60) + " min";
  }

  function pageText(p) {
    var text = p.page.replace(/_/g, " ");
    if (p.stage === "dialogue" && p.page.indexOf("left") !== 0) text += p.connected === false ? " (page closed)" : (p.connected ? " (page open)" : "");
    return text;
  }

  function apply(data) {
    var totals = { protocol: 0, waiting: 0, dialogue: 0, questionnaire: 0, done: 0, dropouts: 0 };
    var people = [];
    Object.keys(data.studies).forEach(function (id) {
      var study = data.studies[id];
      Object.keys(totals).forEach(function (key) { totals[key] += study.summary[key] || 0; });
      people = people.concat(study.people);
    });
    Object.keys(totals).forEach(function (key) {
      var element = document.getElementById("monitor-" + key);
      if (element) element.textContent = String(totals[key]);
    });
    var quiet = document.getElementById("monitor-quiet");
    if (quiet) quiet.textContent = String(Math.round(data.quiet_seconds / 60));
    var body = document.createDocumentFragment();
    people.forEach(function (p) {
      var tr = document.createElement("tr");
      tr.setAttribute("data-participant", p.participant);
      tr.setAttribute("data-stage", p.stage);
      if (p.dropout) tr.className = "dropout";
      tr.appendChild(cell(p.participant, "participants"));
      tr.appendChild(cell(p.study));
      tr.appendChild(cell((STAGE_WORDS[p.stage] || p.stage) + (p.dropout ? " (dropout)" : "")));
      tr.appendChild(cell(pageText(p)));
      tr.appendChild(cell(duration(p.seconds)));
      body.appendChild(tr);
    });
    if (!people.length) {
      var none = document.createElement("tr");
      var td = cell("Nobody has arrived yet.");
      td.colSpan = 5;
      none.appendChild(td);
      body.appendChild(none);
    }
    rows.textContent = "";
    rows.appendChild(body);
    if (stamp) stamp.textContent = "updated " + new Date().toLocaleTimeString();
  }

  function poll() {
    fetch("/admin/api/monitor", { credentials: "same-origin", cache: "no-store" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) { if (data) apply(data); })
      .catch(function () { if (stamp) stamp.textContent = "not updating (server unreachable)"; })
      .finally(function () { setTimeout(poll, EVERY_MS); });
  }

  poll();
})();
