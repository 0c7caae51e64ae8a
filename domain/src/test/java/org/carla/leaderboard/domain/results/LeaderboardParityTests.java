package org.carla.leaderboard.domain.results;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Hundreds of random routes merged by us and by a Python re-statement of {@code docs/results.md} (Python is
 * the oracle of its own float arithmetic: the order of the additions, {@code round}, {@code str}). Hand-computed
 * expectations cannot cover this many values; the small cases are in {@link CheckpointMergeTests}.
 */
class LeaderboardParityTests {

    private static final String[] FAILURES = { "Failed - Agent timed out", "Failed - Agent deviated from the route",
            "Failed - Agent got blocked", "Failed", "Failed - Agent crashed" };
    private static final String[] COUNTED = { "collisions_layout", "collisions_pedestrian", "collisions_vehicle",
            "red_light", "stop_infraction", "min_speed_infractions", "yield_emergency_vehicle_infractions",
            "scenario_timeouts", "route_dev", "vehicle_blocked", "route_timeout" };

    /** docs/results.md's merge and global statistics, in Python from the design text (not the Leaderboard's code). */
    private static final String ORACLE = """
            import json, math, sys
            KEYS = ['collisions_layout', 'collisions_pedestrian', 'collisions_vehicle', 'red_light', 'stop_infraction',
                    'outside_route_lanes', 'min_speed_infractions', 'yield_emergency_vehicle_infractions',
                    'scenario_timeouts', 'route_dev', 'vehicle_blocked', 'route_timeout']
            ORDER = ['collisions_pedestrian', 'collisions_vehicle', 'collisions_layout', 'red_light', 'stop_infraction',
                     'outside_route_lanes', 'route_dev', 'route_timeout', 'vehicle_blocked',
                     'yield_emergency_vehicle_infractions', 'scenario_timeouts', 'min_speed_infractions']
            records, total = [], 0
            for path in sys.stdin.read().split():
                with open(path) as f:
                    data = json.load(f)
                records += data['_checkpoint']['records']
                total += data['_checkpoint']['progress'][1]
            records.sort(key=lambda r: (int(r['route_id'].split('_')[1]), int(r['route_id'].split('_rep')[-1])))
            for i, r in enumerate(records):
                r['index'] = i
            mean = {'score_composed': 0, 'score_route': 0, 'score_penalty': 0}
            length = game = system = 0
            status, exceptions = 'Perfect', []
            for r in records:
                for k in ('score_route', 'score_penalty', 'score_composed'):
                    mean[k] += r['scores'][k] / total
                length += r['meta']['route_length']
                game += r['meta']['duration_game']
                system += r['meta']['duration_system']
                result = 'Failed' if 'Failed' in r['status'] else r['status']
                if result == 'Failed':
                    exceptions.append([r['route_id'], r['index'], r['status']])
                    status = 'Failed'
                elif status == 'Perfect' and result != 'Perfect':
                    status = result
            mean = {k: round(v, 6) for k, v in mean.items()}
            std = {}
            for k in mean:
                s = 0
                for r in records:
                    s += math.pow(r['scores'][k] - mean[k], 2)
                std[k] = 0 if total == 1 else round(math.sqrt(s / float(total - 1)), 3)
            km = 0
            infractions = {k: 0 for k in KEYS}
            for r in records:
                km += r['meta']['route_length'] / 1000 * r['scores']['score_route'] / 100
                for k in KEYS:
                    if k == 'outside_route_lanes':
                        msgs = r['infractions'][k]
                        infractions[k] += float(msgs[0].split(' ')[8]) / 1000 if msgs else 0.0
                    else:
                        infractions[k] += len(r['infractions'][k])
            km = max(km, 0.001)
            for k in KEYS:
                if k != 'outside_route_lanes':
                    infractions[k] /= km
                infractions[k] = round(infractions[k], 3)
            values = [str(mean['score_composed']), str(mean['score_route']), str(mean['score_penalty'])]
            values += [str(infractions[k]) for k in ORDER]
            print(json.dumps({'status': status, 'scores_mean': mean, 'scores_std_dev': std,
                              'infractions': infractions, 'total_length': length, 'duration_game': game,
                              'duration_system': system, 'exceptions': exceptions, 'values': values,
                              'ids': [r['route_id'] for r in records]}))
            """;

    @Test
    void hundredsOfRandomRoutesAgreeWithPython(@TempDir Path dir) throws Exception {
        for (long seed : new long[] { 1, 2, 3 }) {
            List<Path> files = randomAgents(dir.resolve("seed" + seed), new Random(seed), 4, 100, 3);
            MergeResult result = CheckpointMerge.mergeFiles(files, OptionalInt.of(300));
            assertThat(result.globalResults()).as("seed %d: %s", seed, result.problems()).isTrue();

            var input = String.join("\n", files.stream().map(Path::toString).toList());
            JsonNode python = ResultsJson.mapper().readTree(PythonOracle.run(dir, ORACLE, input));
            CheckpointFile merged = result.merged();
            GlobalRecord global = merged.checkpoint().globalRecord();

            assertThat(merged.values()).as("values, seed %d", seed)
                    .containsExactlyElementsOf(strings(python.get("values")));
            assertThat(Routes.ids(merged)).containsExactlyElementsOf(strings(python.get("ids")));
            assertThat(global.status()).isEqualTo(python.get("status").asText());
            assertThat(global.scoresMean()).isEqualTo(ResultsJson.mapper()
                    .treeToValue(python.get("scores_mean"), GlobalRecord.Scores.class));
            assertThat(global.scoresStdDev()).isEqualTo(ResultsJson.mapper()
                    .treeToValue(python.get("scores_std_dev"), GlobalRecord.Scores.class));
            for (Infraction infraction : Infraction.values()) {
                assertThat(global.infraction(infraction)).as(infraction.key())
                        .isEqualTo(python.get("infractions").get(infraction.key()).doubleValue());
            }
            assertThat(global.meta().totalLength()).isEqualTo(python.get("total_length").doubleValue());
            assertThat(global.meta().durationGame()).isEqualTo(python.get("duration_game").doubleValue());
            assertThat(global.meta().durationSystem()).isEqualTo(python.get("duration_system").doubleValue());
            assertThat(global.meta().exceptions()).hasSize(python.get("exceptions").size());
            for (int i = 0; i < global.meta().exceptions().size(); i++) {
                var exception = global.meta().exceptions().get(i);
                JsonNode expected = python.get("exceptions").get(i);
                assertThat(List.of(exception.routeId(), String.valueOf(exception.index()), exception.status()))
                        .containsExactly(expected.get(0).asText(), expected.get(1).asText(), expected.get(2).asText());
            }
        }
    }

    /** {@code agents} files of {@code routes × repetitions} routes each, records shuffled, the routes interleaved. */
    static List<Path> randomAgents(Path dir, Random random, int agents, int routes, int repetitions)
            throws Exception {
        var perAgent = new ArrayList<List<RouteRecord>>();
        for (int agent = 0; agent < agents; agent++) {
            perAgent.add(new ArrayList<>());
        }
        for (int route = 0; route < routes; route++) {
            for (int repetition = 0; repetition < repetitions; repetition++) {
                perAgent.get(route % agents).add(randomRoute(random, route, repetition));
            }
        }
        var files = new ArrayList<Path>();
        for (int agent = 0; agent < agents; agent++) {
            List<RouteRecord> records = perAgent.get(agent);
            Collections.shuffle(records, random);
            Path file = dir.resolve("agent" + (agent + 1)).resolve("agent_results.json");
            Files.createDirectories(file.getParent());
            ResultsJson.write(file, Routes.agent(records.size(), records.toArray(RouteRecord[]::new)));
            files.add(file);
        }
        return files;
    }

    private static RouteRecord randomRoute(Random random, int route, int repetition) {
        var infractions = new ArrayList<String>();
        double penalty = 1.0;
        int count = random.nextInt(4);
        for (int i = 0; i < count; i++) {
            infractions.add(COUNTED[random.nextInt(COUNTED.length)]);
            infractions.add("infraction " + i);
            penalty *= 0.5 + random.nextDouble() / 2;
        }
        if (random.nextInt(5) == 0) {
            infractions.add("outside_route_lanes");
            infractions.add(Routes.offRoad(PythonFloat.round(random.nextDouble() * 300, 3)));
        }
        boolean completed = random.nextInt(3) > 0;
        double completion = completed ? 100.0 : PythonFloat.round(random.nextDouble() * 100, 6);
        String status = completed ? (infractions.isEmpty() ? "Perfect" : "Completed")
                : FAILURES[random.nextInt(FAILURES.length)];
        return Routes.route(route, repetition, status, completion, PythonFloat.round(penalty, 6),
                PythonFloat.round(200 + random.nextDouble() * 3000, 3), PythonFloat.round(random.nextDouble() * 900, 3),
                PythonFloat.round(random.nextDouble() * 4000, 3), infractions.toArray(String[]::new));
    }

    private static List<String> strings(JsonNode array) {
        var strings = new ArrayList<String>();
        array.forEach(node -> strings.add(node.asText()));
        return strings;
    }
}
