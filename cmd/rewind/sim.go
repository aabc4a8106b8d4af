package main

// simCommand is one simulator under `rewind sim`, registered with registerSim.
type simCommand = command

var sims = &group{usage: "Usage: rewind sim MODEL [flags]", title: "Models", noun: "simulator", cmd: "sim",
	subs: map[string]command{}}

func registerSim(s simCommand) { sims.register(s) }

func init() {
	register(command{name: "sim", summary: "run a seed model as a simulator that writes a log", run: sims.run})
}
