from tuiperf import Scenario

scenario = Scenario(title="bad", question="?")
raise ValueError("broken on purpose for the scenario list")
