// The waiting room: one websocket; the server says when a seat is ready and where it is.
(function () {
  "use strict";
  var box = document.getElementById("lobby");
  var status = document.getElementById("lobby-status");
  var study = box.dataset.study, participant = box.dataset.participant;
  var started = Date.now(), timer = null;
  function say(text) { status.textContent = text; }
  function connect() {
    var proto = location.protocol === "https:" ? "wss://" : "ws://";
    var ws = new WebSocket(proto + location.host + "/ws/lobby/" + encodeURIComponent(study) + "?participant=" + encodeURIComponent(participant));
    var finished = false;
    ws.onmessage = function (ev) {
      var msg = JSON.parse(ev.data);
      if (msg.type === "waiting") {
        timer = setInterval(function () {
          var s = Math.round((Date.now() - started) / 1000);
          say("Looking for a partner… (" + s + " s)");
        }, 1000);
        say("Looking for a partner…");
      } else if (msg.type === "paired") {
        finished = true; clearInterval(timer);
        say("Partner found! Opening the chat…");
        location.assign(msg.url);
      } else if (msg.type === "refused") {
        finished = true; clearInterval(timer);
        say(msg.reason);
        box.querySelector(".spinner").hidden = true;
      }
    };
    ws.onclose = function () {
      if (!finished) { clearInterval(timer); say("Connection lost; trying again…"); setTimeout(connect, 1500); }
    };
  }
  connect();
})();
