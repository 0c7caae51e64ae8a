package org.carla.leaderboard.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;

/** Where the files under test live, and how a manifest file becomes Kubernetes objects. */
final class DeployFiles {

    /** The manifests' placeholders, replaced at apply time by deploy/render.sh. */
    static final List<String> PLACEHOLDERS = List.of("ACCOUNT_ID", "REGION");

    static final List<String> SERVICES = List.of("ingest-service", "job-launcher", "results-relay", "ops-console");

    /** The services a submission goes through (the ops console is the operators' page beside them). */
    static final List<String> SUBMISSION_PIPELINE = List.of("ingest-service", "job-launcher", "results-relay");

    private DeployFiles() {
    }

    static Path root() {
        // surefire sets it (deploy/pom.xml); an IDE run from deploy/ falls back to the parent folder
        String configured = System.getProperty("repository.root");
        Path root = configured != null ? Path.of(configured) : Path.of("").toAbsolutePath().getParent();
        return root.toAbsolutePath().normalize();
    }

    static Path deploy(String relative) {
        return root().resolve("deploy").resolve(relative);
    }

    /** Every *.yml / *.yaml file under the folder, sorted, or none when the folder does not exist. */
    static List<Path> yamlFilesUnder(Path folder) {
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(folder)) {
            return files.filter(Files::isRegularFile)
                    .filter(file -> file.getFileName().toString().matches(".*\\.ya?ml"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The generated service manifests that are committed, in service order. */
    static List<Path> generatedServiceManifests() {
        return SERVICES.stream().map(service -> deploy("kubernetes/" + service + ".yml")).filter(Files::isRegularFile).toList();
    }

    /** Each YAML document of the file as a typed fabric8 object (GenericKubernetesResource for unknown kinds). */
    static List<HasMetadata> objects(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            Object parsed = Serialization.unmarshal(in);
            if (parsed instanceof List<?> list) {
                return list.stream().map(HasMetadata.class::cast).toList();
            }
            if (parsed instanceof io.fabric8.kubernetes.api.model.KubernetesList list) {
                return list.getItems();
            }
            return List.of((HasMetadata) parsed);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
