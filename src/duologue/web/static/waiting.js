// The waiting room: after the study's wait, offer a code for the time spent (the study pays it).
(function () {
  const lobby = document.getElementById("lobby");
  const leave = document.getElementById("leave-waiting");
  if (!lobby || !leave) return;
  const after = Number(leave.dataset.after || 0);
  setTimeout(function () { leave.hidden = false; }, after * 1000);
})();
