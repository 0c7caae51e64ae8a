package org.carla.leaderboard.domain.results;

import java.util.Map;
import java.util.Optional;

/** The names of an agent's sensors: CARLA's type, the checkpoint's name ({@code sensors}), the readable name. */
public final class Sensors {

    private static final Map<String, String> CHECKPOINT_NAMES = Map.of(
            "sensor.camera.rgb", "carla_camera",
            "sensor.lidar.ray_cast", "carla_lidar",
            "sensor.other.radar", "carla_radar",
            "sensor.other.gnss", "carla_gnss",
            "sensor.other.imu", "carla_imu",
            "sensor.opendrive_map", "carla_opendrive_map",
            "sensor.speedometer", "carla_speedometer");

    private static final Map<String, String> READABLE_NAMES = Map.of(
            "carla_camera", "RGB Camera",
            "carla_lidar", "LIDAR",
            "carla_radar", "Radar",
            "carla_gnss", "GNSS",
            "carla_imu", "IMU",
            "carla_opendrive_map", "OpenDrive Map",
            "carla_speedometer", "Speedometer");

    private Sensors() {
    }

    /** The checkpoint's name of a CARLA sensor type ({@code sensor.camera.rgb} → {@code carla_camera}). */
    public static Optional<String> checkpointName(String carlaType) {
        return Optional.ofNullable(CHECKPOINT_NAMES.get(carlaType));
    }

    /** The name shown to participants ({@code carla_camera} → {@code RGB Camera}); an unknown name as it is, printable. */
    public static String readableName(String checkpointName) {
        return READABLE_NAMES.getOrDefault(checkpointName, RouteRecordCheck.printable(checkpointName));
    }
}
