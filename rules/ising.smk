# DoGS §5.1, §5.4, §5.6 and App. B.1/B.3: Ising guarantee experiments (being written).
