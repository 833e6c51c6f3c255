mod providers;
