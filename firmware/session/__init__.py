"""The board session: referee + clock + game record, its clock side and views; handled event
logs."""
