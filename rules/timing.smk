# DoGS §5.2 and App. B.2: the 10^6-variable timing run (being written).
