// The code page of a crowd study: after a few seconds to read the code, back to the platform
// (Prolific's completion address) or the code posted to MTurk.
(function () {
  "use strict";
  var box = document.getElementById("done");
  var seconds = Number(box.dataset.auto || 5);
  setTimeout(function () {
    var form = document.getElementById("mturk-submit");
    var link = document.getElementById("completion-link");
    if (form) { form.submit(); } else if (link) { location.assign(link.href); }
  }, seconds * 1000);
})();
