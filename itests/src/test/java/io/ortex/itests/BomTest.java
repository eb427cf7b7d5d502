package io.ortex.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Checks that the BOM ({@code bom/pom.xml}) pins exactly the published artifacts of the build: every module of the
 * reactor that packages a jar and is deployed is listed, with the build's version, and nothing else is.
 */
class BomTest {
    private static final Path ROOT = Path.of("..");

    @Test
    void bomListsEveryPublishedJarModule() throws Exception {
        Document parent = read(ROOT.resolve("pom.xml"));
        Document bom = read(ROOT.resolve("bom/pom.xml"));
        assertEquals(text(parent.getDocumentElement(), "version"), text(bom.getDocumentElement(), "version"),
                "bom/pom.xml has no parent: its version must be the build's");

        Set<String> pinned = new TreeSet<>();
        Element management = child(bom.getDocumentElement(), "dependencyManagement");
        for (Element dependency : children(child(management, "dependencies"), "dependency")) {
            assertEquals("io.ortex", text(dependency, "groupId"));
            assertEquals("${project.version}", text(dependency, "version"), text(dependency, "artifactId"));
            pinned.add(text(dependency, "artifactId"));
        }

        Set<String> published = new TreeSet<>();
        Set<String> all = new TreeSet<>();
        for (String module : modules(parent)) {
            Document pom = read(ROOT.resolve(module).resolve("pom.xml"));
            String artifactId = text(pom.getDocumentElement(), "artifactId");
            all.add(artifactId);
            String packaging = text(pom.getDocumentElement(), "packaging");
            Element properties = child(pom.getDocumentElement(), "properties");
            boolean deployed = properties == null || !"true".equals(text(properties, "maven.deploy.skip"));
            if (deployed && (packaging == null || packaging.equals("jar"))) {
                published.add(artifactId);
            }
        }
        Set<String> missing = new TreeSet<>(published);
        missing.removeAll(pinned);
        assertTrue(missing.isEmpty(), "published modules missing from bom/pom.xml: " + missing);
        Set<String> unknown = new TreeSet<>(pinned);
        unknown.removeAll(all);
        assertTrue(unknown.isEmpty(), "bom/pom.xml pins artifacts no module builds: " + unknown);
    }

    /** The modules of the root POM, with those of nested aggregators. */
    private static List<String> modules(Document pom) throws Exception {
        List<String> out = new ArrayList<>();
        for (Element module : children(child(pom.getDocumentElement(), "modules"), "module")) {
            String path = module.getTextContent().trim();
            out.add(path);
            Element nested = child(read(ROOT.resolve(path).resolve("pom.xml")).getDocumentElement(), "modules");
            for (Element inner : nested == null ? List.<Element>of() : children(nested, "module")) {
                out.add(path + "/" + inner.getTextContent().trim());
            }
        }
        return out;
    }

    private static Document read(Path file) throws Exception {
        assertTrue(Files.isRegularFile(file), file + " is missing");
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    }

    private static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.get(0);
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                out.add(e);
            }
        }
        return out;
    }

    private static String text(Element parent, String name) {
        Element e = child(parent, name);
        return e == null ? null : e.getTextContent().trim();
    }
}
