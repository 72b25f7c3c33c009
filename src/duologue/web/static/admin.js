// Admin dashboard: refresh the counts and quotas from /admin/api/counts every few seconds, no reload.
(function () {
  "use strict";
  var EVERY_MS = 3000;
  var stamp = document.getElementById("counts-updated");

  function set(element, value) {
    if (element && element.textContent !== String(value)) element.textContent = String(value);
  }

  function apply(data) {
    Object.keys(data.total).forEach(function (key) {
      set(document.getElementById("count-" + key), data.total[key]);
    });
    document.querySelectorAll("tr[data-study]").forEach(function (row) {
      var study = data.studies[row.getAttribute("data-study")];
      if (!study) return;
      row.querySelectorAll("[data-key]").forEach(function (cell) {
        set(cell, study[cell.getAttribute("data-key")]);
      });
      study.quotas.forEach(function (quota) {
        row.querySelectorAll("[data-pairing]").forEach(function (line) {
          if (line.getAttribute("data-pairing") !== quota.pairing) return;
          set(line.querySelector("[data-quota-count]"), quota.count);
          var bar = line.querySelector("progress");
          if (bar) { bar.value = quota.count; bar.textContent = String(quota.count); }
        });
      });
    });
    if (stamp) stamp.textContent = "updated " + new Date().toLocaleTimeString();
  }

  function poll() {
    fetch("/admin/api/counts", { credentials: "same-origin", cache: "no-store" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) { if (data) apply(data); })
      .catch(function () { if (stamp) stamp.textContent = "not updating (server unreachable)"; })
      .finally(function () { setTimeout(poll, EVERY_MS); });
  }

  setTimeout(poll, EVERY_MS);
})();
